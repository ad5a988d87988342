// Added to the graph viewer's page by server/api/routes/netron.py: with ?select=<tensor>, once
// the graph is drawn, the node that outputs that tensor is selected and scrolled into view
// (the first divergent layer of a per-layer compare). The page's <body> gets
// data-selected="<tensor>" when it was found, data-select-missing when the graph has no such
// node. It reads the viewer's own objects, so it does nothing when the viewer changes them.
(function () {
  'use strict';
  var wanted = new URLSearchParams(window.location.search).get('select');
  if (!wanted) return;
  var LIMIT_MS = 120000;
  var started = Date.now();
  function outputsTensor(key) {
    return key && Array.isArray(key.outputs) && key.outputs.some(function (argument) {
      return argument && Array.isArray(argument.value) && argument.value.some(function (value) {
        return value && value.name === wanted;
      });
    });
  }
  var timer = setInterval(function () {
    var view = window.__view__;
    var target = view && view._target;
    if (!target || !target._table || target._table.size === 0) {
      if (Date.now() - started > LIMIT_MS) clearInterval(timer);
      return;
    }
    clearInterval(timer);
    var keys = Array.from(target._table.keys());
    var node = keys.find(outputsTensor);
    if (!node) {
      document.body.setAttribute('data-select-missing', wanted);
      return;
    }
    target.scrollTo(target.select([node]));
    document.body.setAttribute('data-selected', wanted);
  }, 200);
})();
