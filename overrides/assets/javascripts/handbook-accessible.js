// Names and keyboard access that Material's markup lacks: see overrides/partials/javascripts/accessible.html.
(function () {
  var searchName = document.currentScript.dataset.searchName;
  var annotationName = document.currentScript.dataset.annotationName || "Annotation";
  function fix() {
    document.querySelectorAll(".md-search[role=dialog]:not([aria-label])").forEach(function (dialog) {
      dialog.setAttribute("aria-label", searchName);
    });
    document.querySelectorAll("a.md-annotation__index:not([aria-label])").forEach(function (marker) {
      var id = marker.querySelector("[data-md-annotation-id]");
      marker.setAttribute("aria-label", annotationName + " " + (id ? id.getAttribute("data-md-annotation-id") : ""));
    });
    document.querySelectorAll("nav.md-code__nav:not([role])").forEach(function (buttons) {
      buttons.setAttribute("role", "none");
    });
    // Code blocks, wide tables, and on notebook pages the `pre` of a text cell (mkdocs-jupyter writes no `code`).
    // Every width read before any tabindex is set: a read after a write lays the whole page out again,
    // once per wide block (on the longest chapter, dozens of layouts of thousands of elements).
    var candidates = document.querySelectorAll(".highlight pre > code:not([tabindex]), .jupyter-wrapper pre:not([tabindex]), .md-typeset__scrollwrap:not([tabindex])");
    var wide = Array.prototype.filter.call(candidates, function (code) { return code.scrollWidth > code.clientWidth; });
    wide.forEach(function (code) { code.setAttribute("tabindex", "0"); });
  }
  var pending = false;
  new MutationObserver(function () {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; fix(); });
  }).observe(document.documentElement, {childList: true, subtree: true, attributes: true, attributeFilter: ["tabindex"]});
  fix();
})();
