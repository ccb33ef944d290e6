// Material for MkDocs' inline script of partials/javascripts/content.html, as a file: the site's
// Content-Security-Policy runs no inline script (overrides/main.html).
var target=document.getElementById(location.hash.slice(1));target&&target.name&&(target.checked=target.name.startsWith("__tabbed_"))
