// Run where the parser has reached the palette toggle in the header (partials/javascripts/palette.html),
// before the rest of the page exists. What Material's bundle changes on the whole page at each load is
// done here instead, where it restyles only the header: on a long chapter, each of those changes made
// the browser restyle every element of the page (about 4,000), five times in the bundle's first task.

// The stylesheets' addresses made absolute now, while the page is only its header. Material's instant
// navigation does it at load to every relative href and src on the page (`el.href = el.href`, so that the
// heads of two pages compare equal), and a stylesheet whose href changes is taken in again: every element
// of the page restyled, about 3,300 on the longest chapter. Done here, it restyles the header alone; the
// bundle then finds the addresses absolute and leaves them as they are.
(function () {
  document.querySelectorAll("link[rel=stylesheet][href]").forEach(function (link) {
    if (!/^(?:[a-z]+:)?\/\//i.test(link.getAttribute("href"))) link.href = link.href;
  });
})();

(function () {
  // The root's classes: JavaScript runs (Material's bundle swaps no-js for js), and the focus-visible
  // polyfill the bundle carries (its class and attribute). The bundle then sets what is already set.
  var root = document.documentElement;
  root.classList.remove("no-js");
  root.classList.add("js", "js-focus-visible");
  root.setAttribute("data-js-focus-visible", "");

  // The colour palette toggle: Material's palette component (components/palette in its bundle) and its
  // inline script in one, with the same saved state (`__palette`). Material's component set the
  // palette the page already had at each load, with `data-md-color-switching` on <body> (its stylesheet's
  // `[data-md-color-switching] *` restyles every element), a new <meta name="color-scheme"> (restyles
  // every element) and the attribute removed in a later task (every element again).
  var form = document.querySelector("form[data-handbook-palette]");
  if (!form) return;
  var inputs = Array.prototype.slice.call(form.querySelectorAll("input"));
  var header = document.querySelector("[data-md-component=header]");
  var themeColor = meta("theme-color");
  var colorScheme = meta("color-scheme");
  var current = __md_get("__palette") || {
    index: inputs.findIndex(function (input) { return matchMedia(input.getAttribute("data-md-color-media")).matches; })
  };
  var index = Math.max(0, Math.min(current.index, inputs.length - 1));

  function meta(name) {
    var element = document.createElement("meta");
    element.name = name;
    document.head.appendChild(element);
    return element;
  }

  function colors(input) {
    var color = {};
    for (var key of ["media", "scheme", "primary", "accent"]) color[key] = input.getAttribute("data-md-color-" + key);
    if (color.media === "(prefers-color-scheme)") {  // the automatic option: the system's preference decides
      var light = matchMedia("(prefers-color-scheme: light)").matches;
      var system = form.querySelector("[data-md-color-media='(prefers-color-scheme: " + (light ? "light" : "dark") + ")']");
      for (var key of ["scheme", "primary", "accent"]) color[key] = system.getAttribute("data-md-color-" + key);
    }
    return color;
  }

  // Transitions stay off while the colours change (Material's `data-md-color-switching`).
  function apply(chosen, later) {
    index = chosen;
    var color = colors(inputs[index]);
    document.body.setAttribute("data-md-color-switching", "");
    for (var key in color) document.body.setAttribute("data-md-color-" + key, color[key]);
    inputs.forEach(function (input, i) {
      var label = input.nextElementSibling;
      if (label instanceof HTMLElement) label.hidden = i !== index;
    });
    __md_set("__palette", {index: index, color: color});
    var style = getComputedStyle(header);
    colorScheme.content = style.colorScheme;
    themeColor.content = "#" + style.backgroundColor.match(/\d+/g)
      .map(function (value) { return (+value).toString(16).padStart(2, "0"); }).join("");
    var settled = function () { document.body.removeAttribute("data-md-color-switching"); };
    // At load the colours were computed just now (reading the header's style), with no transition:
    // removed at once, while the page is only its header. On a switch, after the page restyled.
    if (later) setTimeout(settled); else settled();
  }

  apply(index, false);
  inputs.forEach(function (input, i) {
    input.addEventListener("change", function () { apply(i, true); });
  });
  // Enter on the toggle switches to the next palette, as in Material.
  form.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") return;
    var next = inputs[(index + 1) % inputs.length];
    next.click();
    next.focus();
  });
  // A change of the system's preference applies the chosen palette again (the automatic option follows it).
  matchMedia("(prefers-color-scheme: light)").addEventListener("change", function () { apply(index, true); });
})();
