// lmms-comparative report: tabs, and the item browser of each benchmark. No library; everything it
// loads lies in the report's folder (items/index.js, items/chunk_*.js, thumbs/, full/).
(function () {
  "use strict";
  var INDEX = window.LC_INDEX || { runs: [], tasks: [], categories: [], domains: [], outcomes: [], chunk: 200, rows: [] };
  var PAGE = 50;
  var chunks = {};
  var waiting = {};

  window.LC_CHUNK = function (number, items) {
    chunks[number] = items;
    (waiting[number] || []).forEach(function (done) { done(); });
    delete waiting[number];
  };

  function loadChunk(number, done) {
    if (chunks[number]) { done(); return; }
    if (waiting[number]) { waiting[number].push(done); return; }
    waiting[number] = [done];
    var script = document.createElement("script");
    script.src = "items/chunk_" + String(number).padStart(5, "0") + ".js";
    document.body.appendChild(script);
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function select(name, label, options) {
    var s = el("select", { name: name, "aria-label": label });
    options.forEach(function (o) { s.appendChild(el("option", { value: o[0], text: o[1] })); });
    return el("label", {}, [document.createTextNode(label + " "), s]);
  }

  // ---- tabs -------------------------------------------------------------------------------------
  function showTab(id) {
    document.querySelectorAll("section.tab").forEach(function (s) { s.hidden = s.id !== id; });
    document.querySelectorAll("nav a").forEach(function (a) { a.classList.toggle("active", a.dataset.tab === id); });
  }
  document.querySelectorAll("nav a").forEach(function (a) {
    a.addEventListener("click", function (e) { e.preventDefault(); showTab(a.dataset.tab); history.replaceState(null, "", "#" + a.dataset.tab); });
  });
  function fromHash() {
    var id = (location.hash || "#overview").slice(1) || "overview";
    showTab(document.getElementById(id) ? id : "overview");
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();

  // ---- the full image on click ------------------------------------------------------------------
  var overlay = document.getElementById("overlay");
  function showFull(names) {
    var content = overlay.querySelector(".content");
    content.textContent = "";
    names.forEach(function (n) { if (n) content.appendChild(el("img", { src: "full/" + n, alt: "full image" })); });
    overlay.hidden = false;
  }
  overlay.querySelector(".close").addEventListener("click", function () { overlay.hidden = true; });
  overlay.addEventListener("click", function (e) { if (e.target === overlay) overlay.hidden = true; });

  // ---- one browser per benchmark ----------------------------------------------------------------
  function Browser(root) {
    this.root = root;
    this.benchmark = root.dataset.benchmark;
    this.mine = [];
    for (var i = 0; i < INDEX.rows.length; i++) if (INDEX.rows[i][3] === this.benchmark) this.mine.push(i);
    this.page = 0;
    this.build();
    this.apply();
  }

  Browser.prototype.build = function () {
    var self = this, rows = this.mine.map(function (i) { return INDEX.rows[i]; });
    function used(column, names) {
      var seen = {};
      rows.forEach(function (r) { seen[r[column]] = true; });
      return [["", "all"]].concat(Object.keys(seen).map(function (k) { return [k, names[k] || "(none)"]; }));
    }
    var runs = INDEX.runs.map(function (name, i) { return [String(i), name]; });
    var filters = el("div", { class: "filters" }, [
      select("task", "task", used(0, INDEX.tasks)),
      select("category", "category", used(1, INDEX.categories)),
      select("domain", "domain", used(2, INDEX.domains)),
    ]);
    INDEX.runs.forEach(function (name, i) {
      filters.appendChild(select("outcome" + i, name, [["", "any"]].concat(INDEX.outcomes.map(function (o, j) { return [String(j), o]; }))));
    });
    if (INDEX.runs.length > 1) {
      filters.appendChild(select("flipA", "flips: A", runs));
      filters.appendChild(select("flipB", "B", runs));
      filters.appendChild(select("flip", "show", [["", "every item"], ["b_only", "B right, A wrong"], ["a_only", "A right, B wrong"]]));
      filters.querySelector("select[name=flipB]").value = "1";
    }
    this.count = el("p", { class: "count" });
    this.list = el("div", { class: "items" });
    this.pager = el("div", { class: "pager" });
    this.root.appendChild(filters);
    this.root.appendChild(this.count);
    this.root.appendChild(this.list);
    this.root.appendChild(this.pager);
    filters.addEventListener("change", function () { self.page = 0; self.apply(); });
  };

  Browser.prototype.value = function (name) {
    var s = this.root.querySelector("select[name=" + name + "]");
    return s ? s.value : "";
  };

  Browser.prototype.apply = function () {
    var self = this;
    var task = this.value("task"), category = this.value("category"), domain = this.value("domain");
    var outcome = INDEX.runs.map(function (_, i) { return self.value("outcome" + i); });
    var flip = this.value("flip"), fa = +this.value("flipA"), fb = +this.value("flipB");
    this.shown = this.mine.filter(function (i) {
      var r = INDEX.rows[i];
      if (task !== "" && String(r[0]) !== task) return false;
      if (category !== "" && String(r[1]) !== category) return false;
      if (domain !== "" && String(r[2]) !== domain) return false;
      for (var k = 0; k < outcome.length; k++) if (outcome[k] !== "" && String(r[4][k]) !== outcome[k]) return false;
      if (flip) {
        var a = r[5][fa], b = r[5][fb];
        if (a === null || b === null) return false;
        if (flip === "b_only" && !(b > a)) return false;
        if (flip === "a_only" && !(a > b)) return false;
      }
      return true;
    });
    this.render();
  };

  Browser.prototype.render = function () {
    var self = this, pages = Math.max(1, Math.ceil(this.shown.length / PAGE));
    this.page = Math.min(this.page, pages - 1);
    this.count.textContent = this.shown.length + " of " + this.mine.length + " items";
    var slice = this.shown.slice(this.page * PAGE, (this.page + 1) * PAGE);
    this.list.textContent = "";
    slice.forEach(function (i) { self.list.appendChild(self.card(i)); });
    this.pager.textContent = "";
    var prev = el("button", { type: "button", text: "previous" }), next = el("button", { type: "button", text: "next" });
    prev.disabled = this.page === 0;
    next.disabled = this.page >= pages - 1;
    prev.addEventListener("click", function () { self.page--; self.render(); });
    next.addEventListener("click", function () { self.page++; self.render(); });
    this.pager.appendChild(prev);
    this.pager.appendChild(el("span", { text: " page " + (this.page + 1) + " of " + pages + " " }));
    this.pager.appendChild(next);
  };

  Browser.prototype.card = function (i) {
    var r = INDEX.rows[i];
    var card = el("article", { class: "item", "data-row": String(i) });
    var head = el("div", { class: "head" });
    if (r[6]) {
      var thumbs = el("div", { class: "thumbs" });
      card.thumbs = thumbs;
      head.appendChild(thumbs);
    }
    var states = el("div", { class: "states" });
    INDEX.runs.forEach(function (name, k) {
      var o = INDEX.outcomes[r[4][k]];
      states.appendChild(el("span", { class: "state " + o, title: name, text: name + ": " + o }));
    });
    head.appendChild(el("div", { class: "what" }, [el("code", { text: INDEX.tasks[r[0]] }), el("span", { text: " " + INDEX.categories[r[1]] + (INDEX.domains[r[2]] ? " · " + INDEX.domains[r[2]] : "") }), states]));
    card.appendChild(head);
    var body = el("div", { class: "body" });
    body.hidden = true;
    card.appendChild(body);
    var chunk = Math.floor(i / INDEX.chunk);
    loadChunk(chunk, function () {
      var item = chunks[chunk][i % INDEX.chunk];
      card.querySelector(".what code").textContent = item.task + " · " + item.key;
      (item.images || []).forEach(function (n) {
        if (n && card.thumbs) {
          var img = el("img", { src: "thumbs/" + n, alt: "image", class: "thumb" });
          img.addEventListener("click", function (e) { e.stopPropagation(); showFull(item.images); });
          card.thumbs.appendChild(img);
        }
      });
      fill(body, item);
    });
    head.addEventListener("click", function () { body.hidden = !body.hidden; card.classList.toggle("open", !body.hidden); });
    return card;
  };

  function fill(body, item) {
    body.appendChild(el("div", { class: "images" }, (item.images || []).map(function (n, k) {
      if (n) return el("img", { src: "full/" + n, alt: "image " + (k + 1), class: "full", loading: "lazy" });
      var video = /\.(mp4|avi|mov|mkv|webm)$/i.test(item.media[k] || "");
      var withheld = (item.withheld || []).indexOf(k) >= 0;
      return el("span", { class: "missing", text: "(" + item.media[k] + (withheld ? ": media outside the data roots, not shown)" : video ? ": a video; frames sampled uniformly over it follow)" : ": not an image at hand)") });
    })));
    if (item.question) body.appendChild(el("pre", { class: "question", text: item.question }));
    body.appendChild(el("p", {}, [el("b", { text: "gold: " }), document.createTextNode(item.target)]));
    var table = el("table", { class: "replies" });
    table.appendChild(el("tr", {}, ["run", "reply", "parsed", "outcome", "score", "details"].map(function (h) { return el("th", { text: h }); })));
    INDEX.runs.forEach(function (name, k) {
      var run = item.runs[k];
      if (!run) { table.appendChild(el("tr", {}, [el("td", { text: name }), el("td", { text: "(not in this run)", colspan: "5" })])); return; }
      var details = Object.keys(run.fields || {}).map(function (f) { return f + ": " + run.fields[f]; }).join("; ");
      var row = el("tr", { class: run.outcome }, [el("td", { text: name }), el("td", {}, [el("pre", { class: "reply", text: run.reply })]), el("td", { text: run.parsed === null || run.parsed === undefined ? "" : String(run.parsed) }), el("td", { text: run.outcome }), el("td", { text: run.score === null ? "" : String(run.score) }), el("td", { class: "details", text: details })]);
      table.appendChild(row);
      if (run.questions && run.questions.length) {
        var q = el("table", { class: "questions" });
        run.questions.forEach(function (x) { q.appendChild(el("tr", { class: x.correct ? "right" : x.cannot ? "partial" : "wrong" }, [el("td", { text: x.question || "" }), el("td", { text: x.answer || "(no answer)" }), el("td", { text: String(x.score) })])); });
        table.appendChild(el("tr", {}, [el("td", { text: "" }), el("td", { colspan: "5" }, [q])]));
      }
    });
    body.appendChild(table);
  }

  document.querySelectorAll(".browser").forEach(function (root) { root.browser = new Browser(root); });
})();
