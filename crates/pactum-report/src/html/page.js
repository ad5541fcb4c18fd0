(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("pactum-report").textContent);
  var results = data.results;
  var items = Array.prototype.slice.call(document.querySelectorAll("details.trace"));
  var haystack = [];
  var contracts = {};
  var clauses = {};
  results.forEach(function (r, i) {
    haystack[i] = JSON.stringify(r).toLowerCase();
    r.contracts.forEach(function (c) {
      contracts[c.contract_id] = true;
      c.clauses.forEach(function (cl) { clauses[c.contract_id + " / " + cl.id] = true; });
    });
  });
  function fill(select, keys) {
    Object.keys(keys).sort().forEach(function (k) {
      var o = document.createElement("option");
      o.value = k;
      o.textContent = k;
      select.appendChild(o);
    });
  }
  var fStatus = document.getElementById("f-status");
  var fContract = document.getElementById("f-contract");
  var fClause = document.getElementById("f-clause");
  var fSearch = document.getElementById("f-search");
  var fCount = document.getElementById("f-count");
  fill(fContract, contracts);
  fill(fClause, clauses);
  function matches(r, i) {
    if (fStatus.value && r.status !== fStatus.value) { return false; }
    if (fContract.value && !r.contracts.some(function (c) { return c.contract_id === fContract.value; })) { return false; }
    if (fClause.value && !r.contracts.some(function (c) {
      return c.clauses.some(function (cl) { return c.contract_id + " / " + cl.id === fClause.value; });
    })) { return false; }
    var q = fSearch.value.trim().toLowerCase();
    return !q || haystack[i].indexOf(q) >= 0;
  }
  function apply() {
    var shown = 0;
    items.forEach(function (el) {
      var i = Number(el.getAttribute("data-index"));
      var ok = matches(results[i], i);
      el.hidden = !ok;
      if (ok) { shown += 1; }
    });
    fCount.textContent = shown + " of " + items.length + " shown";
  }
  [fStatus, fContract, fClause].forEach(function (el) { el.addEventListener("change", apply); });
  fSearch.addEventListener("input", apply);
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (el && el.tagName === "DETAILS") { el.open = true; }
  }
  // Without a link to a trace, the first failure is opened: its evidence
  // is what a reader came for.
  if (!location.hash && items.length && items[0].getAttribute("data-status") === "fail") {
    items[0].open = true;
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  apply();
  document.getElementById("filters").hidden = false;
  document.documentElement.setAttribute("data-pactum-ready", String(items.length));
})();
