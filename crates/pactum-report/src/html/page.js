(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("pactum-report").textContent);
  var results = data.results;
  var list = document.getElementById("traces");
  var PAGE = /*PAGE*/;
  // At most this many characters (code points) of a message are drawn,
  // the rest cut with a note (html.rs's MESSAGE_CHARS and cut_note).
  var MESSAGE = /*MESSAGE*/;
  // The traces rendered as HTML (the first ones, failures first), by index.
  var rendered = {};
  var order = [];
  var rows = {};
  Array.prototype.slice.call(list.querySelectorAll("details.trace")).forEach(function (el) {
    var i = Number(el.getAttribute("data-index"));
    rendered[i] = el;
    order.push(i);
  });
  // Beyond them, every trace's row (failures first), computed by pactum:
  // [index, deciding clause, label, channels not observed, [[mark, class, kind]...],
  // [interpreter, why the conversation stopped] of an authored test or null].
  var rowsEl = document.getElementById("pactum-rows");
  if (rowsEl) {
    order = [];
    JSON.parse(rowsEl.textContent).forEach(function (row) {
      order.push(row[0]);
      rows[row[0]] = row;
    });
    var more = document.getElementById("more");
    if (more) { more.hidden = true; }
  }
  var contracts = {};
  var clauses = {};
  results.forEach(function (r) {
    (r.contracts || []).forEach(function (c) {
      contracts[c.contract_id] = true;
      c.clauses.forEach(function (cl) { clauses[c.contract_id + " / " + cl.id] = true; });
    });
  });
  // Untrusted text is only ever a text node; invisible and
  // direction-changing characters are shown as U+XXXX, as in the HTML
  // (a `u` pattern: the class holds code points above U+FFFF).
  var CTL = /[/*CTL*/]/gu;
  function el(tag, cls, txt) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (txt !== undefined) { text(e, txt); }
    return e;
  }
  function text(parent, s) {
    s = String(s);
    // CTL is global: nothing in this loop may call text() again.
    var last = 0;
    var m;
    CTL.lastIndex = 0;
    while ((m = CTL.exec(s)) !== null) {
      parent.appendChild(document.createTextNode(s.slice(last, m.index)));
      // A run of one boxed character is one box with its count (html.rs's
      // box_label); the number is the whole code point, above U+FFFF too.
      var n = 1;
      var end = m.index + m[0].length;
      while (s.startsWith(m[0], end)) { n += 1; end += m[0].length; }
      var code = m[0].codePointAt(0).toString(16).toUpperCase();
      var box = el("span", "ctl");
      box.textContent = "U+" + code.padStart(4, "0") + (n > 1 ? " \u00d7" + n : "");
      parent.appendChild(box);
      last = end;
      CTL.lastIndex = end;
    }
    parent.appendChild(document.createTextNode(s.slice(last)));
    return parent;
  }
  function round(x, d) { return x.toFixed(d); }
  function fact(dl, term, value, cls) {
    dl.appendChild(el("dt", null, term));
    dl.appendChild(el("dd", cls, value));
  }
  // `shown`: [where it points or null, its text], as pactum wrote them
  // (a JSON value is never re-written here).
  function evidence(e, shown) {
    var place, name = null, body = shown[1];
    if (e.kind === "quote") { place = "turn " + e.turn + " " + e.source; }
    else if (e.kind === "tool_call") { place = "turn " + e.turn + " tool call #" + (e.index + 1); name = e.name; }
    else if (e.kind === "side_effect") { place = "turn " + e.turn + " side effect"; name = e.effect; }
    else { place = "field " + e.pointer; }
    var d = el("div", "evidence " + e.kind);
    if (shown[0]) { d.setAttribute("data-goto", shown[0]); }
    d.appendChild(el("span", "where", place));
    if (name !== null) { d.appendChild(document.createTextNode(" ")); d.appendChild(el("code", "tool", name)); }
    if (e.errored) { d.appendChild(document.createTextNode(" ")); d.appendChild(el("span", "err", "(errored)")); }
    var pre = el("pre");
    pre.appendChild(el("mark", null, body));
    d.appendChild(pre);
    return d;
  }
  // The conversation of result i (as trace.html): each place a clause's
  // evidence points to is marked and names the clause.
  function conversation(i, r, row) {
    var t = r.transcript;
    var cites = [];
    // Each clause's cite, by its position among the result's clauses.
    var byPos = [];
    var k = 0;
    (r.contracts || []).forEach(function (c, ci) {
      c.clauses.forEach(function (cl, j) {
        var m = row[4][k++];
        var it = { clause: cl.id, mark: m[0], cls: m[1], anchor: "t" + i + "-c" + ci + "-" + j };
        byPos.push(it);
        (cl.evidence || []).forEach(function (e) {
          cites.push({ e: e, clause: it.clause, mark: it.mark, cls: it.cls, anchor: it.anchor });
        });
      });
    });
    function cite(parent, c) {
      var s = el("span", "cite " + c.cls, c.mark + " " + c.clause);
      s.setAttribute("data-goto", c.anchor);
      parent.appendChild(document.createTextNode(" "));
      parent.appendChild(s);
    }
    // txt cut at the quoted spans, each at its first occurrence, in order
    // of position; a span overlapping the one before is cited there too
    // (html.rs's segments). `names`: name the citing clauses after a mark.
    function quoted(pre, txt, found, names) {
      var spans = [];
      found.forEach(function (f) {
        var a = f.e.text ? txt.indexOf(f.e.text) : -1;
        if (a >= 0) { spans.push({ a: a, b: a + f.e.text.length, c: [f] }); }
      });
      spans.sort(function (x, y) { return x.a - y.a || y.b - x.b; });
      var segs = [];
      var last = 0;
      spans.forEach(function (sp) {
        if (segs.length && sp.a < last) {
          var prev = segs[segs.length - 1];
          if (!prev.c.some(function (c) { return c.anchor === sp.c[0].anchor; })) { prev.c.push(sp.c[0]); }
          return;
        }
        segs.push(sp);
        last = sp.b;
      });
      // The bound: the code unit where the MESSAGE-th code point starts,
      // and how many code points follow it.
      var limit = txt.length, more = 0, cps = 0;
      for (var u = 0; u < txt.length; u += txt.codePointAt(u) > 0xffff ? 2 : 1) {
        if (cps === MESSAGE) { limit = u; }
        if (cps >= MESSAGE) { more += 1; }
        cps += 1;
      }
      var at = 0;
      segs.forEach(function (sp) {
        if (sp.a >= limit) { return; }
        text(pre, txt.slice(at, sp.a));
        var mk = el("mark", sp.c[0].cls, txt.slice(sp.a, Math.min(sp.b, limit)));
        mk.setAttribute("data-goto", sp.c[0].anchor);
        pre.appendChild(mk);
        if (names) { sp.c.forEach(function (c) { cite(pre, c); }); }
        at = Math.min(sp.b, limit);
      });
      text(pre, txt.slice(at, limit));
      if (more) { text(pre, "\n\u2026 " + more + " more characters not shown (the JSON report holds the whole text)"); }
    }
    function quotes(turn, source) {
      return cites.filter(function (c) { return c.e.kind === "quote" && c.e.turn === turn && c.e.source === source; });
    }
    var sec = el("section", "conversation");
    sec.appendChild(el("h4", null, "Conversation"));
    if (t.incomplete) { sec.appendChild(el("p", "err", "incomplete recording: " + t.incomplete)); }
    if (t.error) { sec.appendChild(el("p", "err", "the target failed: " + t.error)); }
    if (t.offered_tools) { sec.appendChild(el("p", "offered", "tools offered: " + (t.offered_tools.join(", ") || "none"))); }
    var unobserved = row[3].split(", ");
    var call = 0;
    (t.turns || []).forEach(function (turn, ti) {
      var n = ti + 1;
      var d = el("div", "turn");
      d.id = "t" + i + "-turn" + n;
      d.appendChild(el("div", "turn-no", "turn " + n));
      (turn.input || []).forEach(function (m) {
        var md = el("div", "msg " + m.role);
        md.appendChild(el("span", "role", m.role));
        var pre = el("pre");
        quoted(pre, m.content, quotes(n, m.role), false);
        md.appendChild(pre);
        d.appendChild(md);
      });
      (turn.tool_calls || []).forEach(function (tc) {
        var at = call++;
        // [arguments, result, clauses citing it], as pactum wrote them.
        var shown = row[6][at];
        var mine = shown[2].map(function (p) { return byPos[p]; });
        var res = shown[1];
        var cd = el("div", "msg call" + (mine.length ? " cited" : ""));
        cd.id = "t" + i + "-call" + at;
        cd.appendChild(el("span", "role", "tool call #" + (at + 1)));
        cd.appendChild(document.createTextNode(" "));
        cd.appendChild(el("code", "tool", tc.name));
        if (tc.error) { cd.appendChild(document.createTextNode(" ")); cd.appendChild(el("span", "err", "errored: " + tc.error)); }
        mine.forEach(function (c) { cite(cd, c); });
        var pre = el("pre");
        var args = shown[0];
        if (mine.length) { pre.appendChild(el("mark", mine[0].cls, args)); } else { text(pre, args); }
        cd.appendChild(pre);
        if (res !== null) {
          var rd = el("div", "result");
          rd.appendChild(el("span", "role", "tool result"));
          rd.appendChild(el("pre", null, res));
          cd.appendChild(rd);
        }
        d.appendChild(cd);
      });
      if (unobserved.indexOf("tool_calls") >= 0) { d.appendChild(el("p", "unobserved", "tool calls: not observed at level " + r.observability + " (a call made here is not in the recording)")); }
      (turn.side_effects || []).forEach(function (se, j) {
        var shownSe = row[7][ti][j];
        var mine = shownSe[1].map(function (p) { return byPos[p]; });
        var sd = el("div", "msg effect" + (mine.length ? " cited" : ""));
        sd.id = "t" + i + "-turn" + n + "-effect" + j;
        sd.appendChild(el("span", "role", "side effect"));
        sd.appendChild(document.createTextNode(" "));
        sd.appendChild(el("code", "tool", se.kind));
        mine.forEach(function (c) { cite(sd, c); });
        sd.appendChild(el("pre", null, shownSe[0]));
        d.appendChild(sd);
      });
      if (unobserved.indexOf("side_effects") >= 0) { d.appendChild(el("p", "unobserved", "side effects: not observed at level " + r.observability)); }
      if (turn.response === null || turn.response === undefined) {
        d.appendChild(el("p", "unobserved", "no response recorded"));
      } else {
        var ad = el("div", "msg assistant");
        ad.id = "t" + i + "-turn" + n + "-response";
        ad.appendChild(el("span", "role", "assistant"));
        var pre = el("pre");
        quoted(pre, turn.response, quotes(n, "response"), true);
        ad.appendChild(pre);
        d.appendChild(ad);
      }
      sec.appendChild(d);
    });
    return sec;
  }
  // A trace's breakdown, drawn when it is first opened (as trace.html).
  // The interpretation panel of an authored test (as trace.html's).
  function reading(i, rd, words) {
    var s = el("section", "reading");
    s.id = "t" + i + "-reading";
    s.appendChild(el("h4", null, "How the test was read"));
    var dl = el("dl", "fields");
    fact(dl, "test", rd.test_id, "id");
    ["goal", "instructions", "restrictions", "scenario"].forEach(function (f) {
      dl.appendChild(el("dt", null, f));
      var dd = el("dd");
      dd.setAttribute("data-field", f);
      if (rd.authored[f]) { dd.appendChild(el("pre", null, rd.authored[f])); } else { dd.appendChild(el("em", null, "(not written)")); }
      dl.appendChild(dd);
    });
    fact(dl, "turns", "at least " + rd.authored.min_turns + " before it may stop, at most " + rd.authored.max_turns);
    fact(dl, "interpreter", words[0], "interpreter");
    fact(dl, "confidence", rd.confidence == null ? "not recorded" : rd.confidence, "confidence");
    fact(dl, "usable", rd.usable == null ? "not recorded" : rd.usable ? "yes" : "no" + (rd.reason ? ": " + rd.reason : ""), rd.usable === false ? "err" : null);
    if (words[1]) { fact(dl, "stopped", words[1], "stopped"); }
    s.appendChild(dl);
    if (rd.contract) {
      var t = el("table", "grid");
      var cap = el("caption", null, "read as contract " + rd.contract.id + " ");
      cap.appendChild(el("code", null, rd.contract.digest));
      if (rd.contract.adversarial) { text(cap, " (adversarial)"); }
      t.appendChild(cap);
      var head = el("tr");
      ["clause", "kind", "as scored", "from field", "why the wording changed"].forEach(function (h) { head.appendChild(el("th", null, h)); });
      t.appendChild(el("thead")).appendChild(head);
      var tb = el("tbody");
      rd.contract.clauses.forEach(function (c) {
        var tr = el("tr");
        tr.setAttribute("data-clause", c.id);
        tr.appendChild(el("td", "id", c.id));
        tr.appendChild(el("td", null, c.kind));
        tr.appendChild(el("td", null, c.text));
        var f = el("td", "field");
        if (c.field == null) { f.appendChild(el("em", null, "no source note")); } else { text(f, c.field); }
        tr.appendChild(f);
        tr.appendChild(el("td", "note", c.note || ""));
        tb.appendChild(tr);
      });
      t.appendChild(tb);
      s.appendChild(t);
      if (rd.contract.simulated_user_objective) { s.appendChild(el("p", null, "the simulated user pursued: " + rd.contract.simulated_user_objective + " (never scored)")); }
    } else {
      s.appendChild(el("p", "err", "No contract was scored: the interpretation was not usable."));
    }
    return s;
  }
  function body(i) {
    var r = results[i];
    var row = rows[i];
    var b = el("div", "body");
    b.appendChild(el("p", "summary", r.summary));
    var dl = el("dl", "facts");
    if (r.source) { fact(dl, "read from", r.source.file + ":" + r.source.line); }
    fact(dl, "observability", r.observability + (row[3] ? " — not observed: " + row[3] : ""));
    fact(dl, "overall score", r.overall_score == null ? "none (nothing evaluable)" : round(r.overall_score, 1));
    if (r.expected) { fact(dl, "expected", r.expected); }
    if (r.error) { fact(dl, "error", r.error, "err"); }
    b.appendChild(dl);
    if (r.interpretation && row[5]) { b.appendChild(reading(i, r.interpretation, row[5])); }
    var side = b;
    if (r.transcript) {
      var beside = el("div", "beside");
      beside.appendChild(conversation(i, r, row));
      side = el("div", "breakdown");
      beside.appendChild(side);
      b.appendChild(beside);
    }
    var k = 0;
    (r.contracts || []).forEach(function (c, ci) {
      var kc = k;
      var t = el("table", "grid clauses");
      var cap = el("caption", null, "contract " + c.contract_id + " ");
      cap.appendChild(el("code", null, c.contract_digest));
      text(cap, " — score " + (c.score == null ? "none" : round(c.score, 1)));
      t.appendChild(cap);
      var head = el("tr");
      ["", "clause", "kind", "severity", "verdict", "confidence", "evidence and rationale"].forEach(function (h) { head.appendChild(el("th", null, h)); });
      t.appendChild(el("thead")).appendChild(head);
      var tb = t.appendChild(el("tbody"));
      c.clauses.forEach(function (cl) {
        var m = row[4][k];
        var tr = el("tr", m[1]);
        tr.id = "t" + i + "-c" + ci + "-" + (k - kc);
        k += 1;
        tr.appendChild(el("td", "mark", m[0]));
        var id = el("td");
        id.appendChild(el("span", "id", cl.id));
        id.appendChild(el("div", "text", cl.text));
        tr.appendChild(id);
        tr.appendChild(el("td", null, m[2]));
        tr.appendChild(el("td", null, cl.severity));
        tr.appendChild(el("td", null, cl.verdict));
        tr.appendChild(el("td", "n", cl.confidence));
        var ev = el("td");
        (cl.evidence || []).forEach(function (e, j) { ev.appendChild(evidence(e, row[8][k - 1][j])); });
        ev.appendChild(el("p", "rationale", cl.rationale));
        if (cl.reason) {
          var p = el("p", "reason", "not evaluable: ");
          p.appendChild(el("code", null, cl.reason));
          if (cl.suggestion) { text(p, " — suggestion: " + cl.suggestion); }
          ev.appendChild(p);
        }
        if (cl.undetermined_operands && cl.undetermined_operands.length) {
          var ul = el("ul", "undetermined");
          cl.undetermined_operands.forEach(function (u) {
            var li = el("li");
            li.appendChild(el("code", null, u.predicate));
            text(li, (u.channel ? " (channel " + u.channel + " not observed)" : "") + ": " + u.reason);
            ul.appendChild(li);
          });
          ev.appendChild(ul);
        }
        if (cl.discounted_echoes && cl.discounted_echoes.length) {
          var pe = el("p", "echo", "discounted as an echo of the user's words: ");
          cl.discounted_echoes.forEach(function (e, j) {
            if (j) { text(pe, ", "); }
            pe.appendChild(el("code", null, e.predicate));
            text(pe, " (turn " + e.turn + ")");
          });
          ev.appendChild(pe);
        }
        tr.appendChild(ev);
        tb.appendChild(tr);
      });
      side.appendChild(t);
    });
    return b;
  }
  // A trace's line (as trace.html's summary); its body comes when opened.
  function item(i) {
    if (rendered[i]) { return rendered[i]; }
    var r = results[i];
    var row = rows[i];
    var d = el("details", "trace");
    d.id = "t" + i;
    d.setAttribute("data-index", String(i));
    d.setAttribute("data-status", r.status);
    var s = el("summary");
    s.appendChild(el("span", "badge " + r.status, row[2]));
    s.appendChild(el("span", "id", r.trace_id));
    s.appendChild(el("span", "contracts", (r.contracts || []).map(function (c) { return c.contract_id; }).join(", ")));
    s.appendChild(el("span", "decided", row[1]));
    d.appendChild(s);
    d.addEventListener("toggle", function () { if (d.open) { fillBody(d); } });
    rendered[i] = d;
    return d;
  }
  function fillBody(d) {
    if (!d.querySelector(".body")) { d.appendChild(body(Number(d.getAttribute("data-index")))); }
  }
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
  // The search text of each result, made on the first search.
  var haystack = [];
  function matches(i) {
    var r = results[i];
    if (fStatus.value && r.status !== fStatus.value) { return false; }
    if (fContract.value && !(r.contracts || []).some(function (c) { return c.contract_id === fContract.value; })) { return false; }
    if (fClause.value && !(r.contracts || []).some(function (c) {
      return c.clauses.some(function (cl) { return c.contract_id + " / " + cl.id === fClause.value; });
    })) { return false; }
    var q = fSearch.value.trim().toLowerCase();
    if (!q) { return true; }
    if (haystack[i] === undefined) { haystack[i] = JSON.stringify(r).toLowerCase(); }
    return haystack[i].indexOf(q) >= 0;
  }
  // The pager: shown only when there is more than one page.
  var pager = el("div", "pager");
  var prev = el("button", null, "previous");
  var next = el("button", null, "next");
  var where = el("span");
  prev.type = next.type = "button";
  pager.appendChild(prev);
  pager.appendChild(where);
  pager.appendChild(next);
  list.parentNode.insertBefore(pager, list);
  var shown = order;
  var page = 0;
  function draw() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(Math.max(page, 0), pages - 1);
    while (list.firstChild) { list.removeChild(list.firstChild); }
    shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (i) { list.appendChild(item(i)); });
    pager.hidden = pages < 2;
    prev.disabled = page === 0;
    next.disabled = page === pages - 1;
    where.textContent = " page " + (page + 1) + " of " + pages + " ";
    fCount.textContent = shown.length + " of " + order.length + " shown";
  }
  function apply() {
    shown = order.filter(matches);
    page = 0;
    draw();
  }
  prev.addEventListener("click", function () { page -= 1; draw(); });
  next.addEventListener("click", function () { page += 1; draw(); });
  [fStatus, fContract, fClause].forEach(function (e) { e.addEventListener("change", apply); });
  fSearch.addEventListener("input", apply);
  // Opens the trace `#tN` names, on its page.
  function open(i) {
    var at = shown.indexOf(i);
    if (at < 0) { shown = order; at = order.indexOf(i); }
    if (at < 0) { return; }
    page = Math.floor(at / PAGE);
    draw();
    var d = item(i);
    fillBody(d);
    d.open = true;
  }
  function openTarget() {
    var m = /^#t(\d+)$/.exec(location.hash);
    if (m) { open(Number(m[1])); }
  }
  draw();
  // Without a link to a trace, the first failure is opened: its evidence
  // is what a reader came for.
  if (!location.hash && order.length && results[order[0]].status === "fail") {
    open(order[0]);
  }
  // Evidence and the place in the conversation it points to are linked
  // both ways: a click on one shows the other.
  document.addEventListener("click", function (ev) {
    var from = ev.target.closest ? ev.target.closest("[data-goto]") : null;
    var to = from && document.getElementById(from.getAttribute("data-goto"));
    if (!to) { return; }
    to.scrollIntoView({ block: "center" });
    to.classList.add("flash");
    setTimeout(function () { to.classList.remove("flash"); }, 1500);
  });
  window.addEventListener("hashchange", openTarget);
  openTarget();
  document.getElementById("filters").hidden = false;
  document.documentElement.setAttribute("data-pactum-ready", String(results.length));
})();
