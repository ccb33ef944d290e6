// The search index (search/search_index.json, over a megabyte on this site) is fetched when the reader
// first turns to the search, not at every page load. Material's bundle requests it as it starts, then
// parses it and hands it to its search worker, on a phone's main thread and its network while the page
// is still loading; most readers of a page never search. Loaded before the bundle: the bundle's request
// for the index (an XMLHttpRequest) is held here and sent the first time the reader focuses the search
// field, opens the search, or presses on it; at once on a page opened from a search result (`?h=`,
// whose terms Material highlights with the index). Search itself is Material's, unchanged: until the
// index arrives it says that it is initialising, as it always did while the index loaded.
(function () {
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;
  var held = [];
  var wanted = false;

  function want() {
    if (wanted) return;
    wanted = true;
    held.forEach(function (request) { send.apply(request[0], request[1]); });
    held = [];
  }

  XMLHttpRequest.prototype.open = function (method, url) {
    this.handbookSearchIndex = /\/search\/search_index\.json$/.test(new URL(url, location.href).pathname);
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    if (this.handbookSearchIndex && !wanted) {
      held.push([this, arguments]);
      return;
    }
    return send.apply(this, arguments);
  };

  var field = "[data-md-component=search-query]";
  document.addEventListener("focusin", function (event) {
    if (event.target instanceof Element && event.target.matches(field)) want();
  }, true);
  document.addEventListener("pointerdown", function (event) {
    if (event.target instanceof Element && event.target.closest("label[for=__search], .md-search")) want();
  }, true);
  document.addEventListener("change", function (event) {
    if (event.target instanceof Element && event.target.id === "__search" && event.target.checked) want();
  }, true);
  if (new URL(location.href).searchParams.has("h")) want();
})();
