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

  // Text with its numbers compared as numbers: _2 before _10.
  function natural(a, b) {
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }

  function select(name, label, options) {
    var s = el("select", { name: name, "aria-label": label });
    options.forEach(function (o) { s.appendChild(el("option", { value: o[0], text: o[1] })); });
    return el("label", {}, [document.createTextNode(label + " "), s]);
  }

  // ---- tabs -------------------------------------------------------------------------------------
  // The sticky header's height, so that nothing scrolled into view lands under it (the CSS reads
  // it as scroll-padding-top; set through the CSSOM, which the page's CSP allows).
  var header = document.querySelector("header");
  function headerRoom() { document.documentElement.style.setProperty("--header", header.offsetHeight + "px"); }
  headerRoom();
  window.addEventListener("resize", headerRoom);

  // Each tab opens where it was left, a tab not seen yet at its top (the offset of the tab left
  // behind would land mid-page in another).
  var scrolled = {}, current = null;
  function showTab(id) {
    if (current === id) return;
    if (current !== null) scrolled[current] = window.scrollY;
    document.querySelectorAll("section.tab").forEach(function (s) { s.hidden = s.id !== id; });
    document.querySelectorAll("nav a").forEach(function (a) { a.classList.toggle("active", a.dataset.tab === id); });
    current = id;
    window.scrollTo(0, scrolled[id] || 0);
  }
  document.querySelectorAll("nav a, a[href^='#b-'], a[href='#overview']").forEach(function (a) {
    a.addEventListener("click", function (e) { e.preventDefault(); history.replaceState(null, "", a.getAttribute("href")); fromHash(); });
  });
  // "#b-<benchmark>?flip=b_only&a=0&b=1&tasks=t1,t2": the tab, its browser showing those flips;
  // "#b-<benchmark>?task=<task>&item=<key>": the tab, that item's card open.
  function fromHash() {
    var hash = (location.hash || "#overview").slice(1), query = "";
    if (hash.indexOf("?") >= 0) { query = hash.slice(hash.indexOf("?") + 1); hash = hash.slice(0, hash.indexOf("?")); }
    var id = document.getElementById(hash) && document.getElementById(hash).classList.contains("tab") ? hash : "overview";
    showTab(id);
    if (!query) return;
    var root = document.querySelector("#" + id + " .browser");
    if (!root || !root.browser) return;
    var params = new URLSearchParams(query);
    if (params.has("item")) root.browser.showItem(params);
    else root.browser.showFlips(params);
  }
  window.addEventListener("hashchange", fromHash);

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
    // The runs with an item of this benchmark: the others get no chip, outcome filter or flips pick.
    var absent = INDEX.outcomes.indexOf("absent"), mine = this.mine;
    this.runs = [];
    INDEX.runs.forEach(function (_, k) {
      if (mine.some(function (i) { return INDEX.rows[i][4][k] !== absent; })) this.runs.push(k);
    }, this);
    this.only = null;  // the tasks a link from the Overview narrowed the items to (a group's)
    this.texts = {};  // row -> its searchable text, made on the first search
    this.allLoaded = false;
    this.page = 0;
    this.build();
    this.apply();
  }

  Browser.prototype.build = function () {
    var self = this, rows = this.mine.map(function (i) { return INDEX.rows[i]; });
    function used(column, names) {
      var seen = {};
      rows.forEach(function (r) { seen[r[column]] = true; });
      var keys = Object.keys(seen).sort(function (a, b) { return natural(names[a] || "", names[b] || ""); });
      return [["", "all"]].concat(keys.map(function (k) { return [k, names[k] || "(none)"]; }));
    }
    var runs = this.runs.map(function (k) { return [String(k), INDEX.runs[k]]; });
    var filters = el("div", { class: "filters" }, [
      select("task", "task", used(0, INDEX.tasks)),
      select("category", "category", used(1, INDEX.categories)),
      select("domain", "domain", used(2, INDEX.domains)),
    ]);
    this.runs.forEach(function (k) {
      filters.appendChild(select("outcome" + k, INDEX.runs[k], [["", "any"]].concat(INDEX.outcomes.map(function (o, j) { return [String(j), o]; }))));
    });
    if (this.runs.length > 1) {
      filters.appendChild(select("flipA", "flips: A", runs));
      filters.appendChild(select("flipB", "B", runs));
      filters.appendChild(select("flip", "show", [["", "every item"], ["b_only", "B right, A wrong"], ["a_only", "A right, B wrong"]]));
      filters.querySelector("select[name=flipA]").value = String(this.runs[0]);
      filters.querySelector("select[name=flipB]").value = String(this.runs[1]);
    }
    this.search = el("input", { type: "search", name: "search", "aria-label": "search", placeholder: "search replies, questions, judges' words" });
    filters.insertBefore(el("label", { class: "search" }, [document.createTextNode("search "), this.search]), filters.firstChild);
    var typing = null;
    this.search.addEventListener("input", function () {
      clearTimeout(typing);
      typing = setTimeout(function () { self.page = 0; self.apply(); }, 200);
    });
    this.narrowed = el("p", { class: "narrowed" });
    this.narrowed.hidden = true;
    this.count = el("p", { class: "count" });
    this.list = el("div", { class: "items" });
    this.pager = el("div", { class: "pager" });
    this.root.appendChild(filters);
    this.root.appendChild(this.narrowed);
    this.root.appendChild(this.count);
    this.root.appendChild(this.list);
    this.root.appendChild(this.pager);
    filters.addEventListener("change", function () { self.page = 0; self.apply(); });
  };

  // The flips a link of the Overview names: runs a and b, which side, the tasks behind the value.
  Browser.prototype.showFlips = function (params) {
    var self = this;
    function set(name, value) { var s = self.root.querySelector("select[name=" + name + "]"); if (s && value !== null) s.value = value; }
    set("flipA", params.get("a"));
    set("flipB", params.get("b"));
    set("flip", params.get("flip"));
    set("task", "");
    var wanted = (params.get("tasks") || "").split(",").filter(Boolean);
    var ids = wanted.map(function (t) { return String(INDEX.tasks.indexOf(t)); }).filter(function (t) { return t !== "-1"; });
    this.only = ids.length ? ids : null;
    this.narrowed.textContent = "";
    if (this.only) {
      var clear = el("button", { type: "button", text: "show every task" });
      clear.addEventListener("click", function () { self.only = null; self.narrowed.hidden = true; self.page = 0; self.apply(); });
      this.narrowed.appendChild(document.createTextNode("Only the tasks behind the Overview's value: " + wanted.join(", ") + " "));
      this.narrowed.appendChild(clear);
      this.narrowed.hidden = false;
    }
    this.page = 0;
    this.apply();
    this.root.scrollIntoView();
  };

  // Every chunk that holds an item of this benchmark, then ``done`` (the search and item links
  // read the items' text, which the index does not carry).
  Browser.prototype.loadAll = function (done) {
    var wanted = {}, left = 0;
    this.mine.forEach(function (i) { wanted[Math.floor(i / INDEX.chunk)] = true; });
    var numbers = Object.keys(wanted);
    left = numbers.length;
    if (!left) { done(); return; }
    numbers.forEach(function (n) { loadChunk(+n, function () { if (--left === 0) done(); }); });
  };

  // One row's searchable text, lowercased: its key, task, question and gold, and per run the
  // reply, the parsed answer, the fields and the questions with their answers (a judge's words).
  Browser.prototype.textOf = function (i) {
    if (this.texts[i] !== undefined) return this.texts[i];
    var item = chunks[Math.floor(i / INDEX.chunk)][i % INDEX.chunk], parts = [item.key, item.task, item.question, item.gold, item.target];
    Object.keys(item.runs || {}).forEach(function (k) {
      var run = item.runs[k];
      parts.push(run.reply, run.parsed === null || run.parsed === undefined ? "" : String(run.parsed));
      Object.keys(run.fields || {}).forEach(function (f) { parts.push(f + ": " + run.fields[f]); });
      (run.questions || []).forEach(function (q) { parts.push(q.question, q.answer); });
    });
    return (this.texts[i] = parts.filter(function (x) { return x; }).join("\n").toLowerCase());
  };

  // The item a link names (its task and key): every filter cleared, its page shown, its card open.
  // A unit that is not an item (a VLM²-Bench pair: "uid"; its items "uid#p", "uid#n") opens the
  // items it is made of.
  Browser.prototype.showItem = function (params) {
    var self = this, task = params.get("task"), key = params.get("item");
    this.loadAll(function () {
      self.root.querySelectorAll(".filters select").forEach(function (s) { s.value = s.options[0].value; });
      if (self.runs.length > 1) {
        self.root.querySelector("select[name=flipA]").value = String(self.runs[0]);
        self.root.querySelector("select[name=flipB]").value = String(self.runs[1]);
      }
      self.search.value = "";
      self.only = null;
      self.narrowed.hidden = true;
      var found = self.mine.filter(function (i) {
        var item = chunks[Math.floor(i / INDEX.chunk)][i % INDEX.chunk];
        return (!task || item.task === task) && (item.key === key || item.key.indexOf(key + "#") === 0);
      });
      self.apply();
      if (!found.length) {
        self.count.textContent = "no item " + key + (task ? " of " + task : "") + " in this report; " + self.count.textContent;
        return;
      }
      self.page = Math.floor(self.shown.indexOf(found[0]) / PAGE);
      self.render();
      found.forEach(function (i) {
        var card = self.list.querySelector("article[data-row='" + i + "']");
        if (card) { card.querySelector(".body").hidden = false; card.classList.add("open", "linked"); }
      });
      var first = self.list.querySelector("article.linked");
      if (first) first.scrollIntoView();
    });
  };

  Browser.prototype.value = function (name) {
    var s = this.root.querySelector("select[name=" + name + "]");
    return s ? s.value : "";
  };

  Browser.prototype.apply = function () {
    var self = this;
    var task = this.value("task"), category = this.value("category"), domain = this.value("domain");
    var outcome = INDEX.runs.map(function (_, i) { return self.value("outcome" + i); }), only = this.only;
    var flip = this.value("flip"), fa = +this.value("flipA"), fb = +this.value("flipB");
    var query = this.search.value.trim().toLowerCase();
    if (query && !this.allLoaded) {
      this.count.textContent = "searching...";
      this.loadAll(function () { self.allLoaded = true; self.apply(); });
      return;
    }
    this.shown = this.mine.filter(function (i) {
      var r = INDEX.rows[i];
      if (task !== "" && String(r[0]) !== task) return false;
      if (only && only.indexOf(String(r[0])) < 0) return false;
      if (category !== "" && String(r[1]) !== category) return false;
      if (domain !== "" && String(r[2]) !== domain) return false;
      for (var k = 0; k < outcome.length; k++) if (outcome[k] !== "" && String(r[4][k]) !== outcome[k]) return false;
      if (flip) {
        var a = r[5][fa], b = r[5][fb];
        if (a === null || b === null) return false;
        if (flip === "b_only" && !(b > a)) return false;
        if (flip === "a_only" && !(a > b)) return false;
      }
      if (query && self.textOf(i).indexOf(query) < 0) return false;
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
    prev.addEventListener("click", function () { self.page--; self.render(); self.root.scrollIntoView(); });
    next.addEventListener("click", function () { self.page++; self.render(); self.root.scrollIntoView(); });
    this.pager.appendChild(prev);
    this.pager.appendChild(el("span", { text: " page " + (this.page + 1) + " of " + pages + " " }));
    this.pager.appendChild(next);
  };

  Browser.prototype.card = function (i) {
    var self = this, r = INDEX.rows[i];
    var card = el("article", { class: "item", "data-row": String(i) });
    var head = el("div", { class: "head" });
    if (r[6]) {
      var thumbs = el("div", { class: "thumbs" });
      card.thumbs = thumbs;
      head.appendChild(thumbs);
    }
    var states = el("div", { class: "states" });
    this.runs.forEach(function (k) {
      var o = INDEX.outcomes[r[4][k]], name = INDEX.runs[k];
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
      var link = "#b-" + self.benchmark + "?task=" + encodeURIComponent(item.task) + "&item=" + encodeURIComponent(item.key);
      var anchor = el("a", { class: "item-link", href: link, title: "a link to this item", text: "link" });
      anchor.addEventListener("click", function (e) { e.stopPropagation(); });  // follows the link; the card stays as it is
      card.querySelector(".what").appendChild(anchor);
      (item.images || []).forEach(function (n) {
        if (n && card.thumbs) {
          var img = el("img", { src: "thumbs/" + n, alt: "image", class: "thumb" });
          img.addEventListener("click", function (e) { e.stopPropagation(); showFull(item.images); });
          card.thumbs.appendChild(img);
        }
      });
      fill(body, item, self.runs);
    });
    head.addEventListener("click", function () {
      body.hidden = !body.hidden;
      card.classList.toggle("open", !body.hidden);
      // An opened card's title in view, below the sticky header, not under it.
      if (!body.hidden && head.getBoundingClientRect().top < header.getBoundingClientRect().bottom) card.scrollIntoView();
    });
    return card;
  };

  function fill(body, item, shown) {
    body.appendChild(el("div", { class: "images" }, (item.images || []).map(function (n, k) {
      if (n) return el("img", { src: "full/" + n, alt: "image " + (k + 1), class: "full", loading: "lazy" });
      var video = /\.(mp4|avi|mov|mkv|webm)$/i.test(item.media[k] || "");
      var withheld = (item.withheld || []).indexOf(k) >= 0;
      return el("span", { class: "missing", text: "(" + item.media[k] + (withheld ? ": media outside the data roots, not shown)" : video ? ": a video; frames sampled uniformly over it follow)" : ": not an image at hand)") });
    })));
    if (item.question) body.appendChild(el("pre", { class: "question", text: item.question }));
    body.appendChild(el("p", { class: "gold" }, [el("b", { text: "gold: " }), document.createTextNode(item.gold || item.target)]));
    var table = el("table", { class: "replies" });
    table.appendChild(el("tr", {}, ["run", "reply", "parsed", "outcome", "score", "details"].map(function (h) { return el("th", { text: h }); })));
    shown.forEach(function (k) {
      var name = INDEX.runs[k], run = item.runs[k];
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
    body.appendChild(el("div", { class: "wide" }, [table]));
  }

  document.querySelectorAll(".browser").forEach(function (root) { root.browser = new Browser(root); });
  fromHash();
})();
