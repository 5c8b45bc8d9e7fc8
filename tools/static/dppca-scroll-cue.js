/* Scroll cues for boxes that scroll sideways (issue 40; added to every page by
   tools/book_html_fixes.py, styled by dppca-book.css).

   A display formula, a wide table or an output wider than the column scrolls
   inside its own box. A box with more content to its right (or left) than it
   shows gets the class dppca-more-right (dppca-more-left): the stylesheet fades
   the content out at that edge, whatever the colour behind it (a tinted theorem
   box, dark mode), so a reader sees that the formula goes on. The classes follow
   the box's scroll position, the window's width, MathJax's typesetting and the
   toggles that open hidden outputs. An inline formula wider than its column
   becomes such a box too (dppca-wide-inline); shorter ones are left alone. When the first pass after MathJax is done,
   <html> gets data-dppca-scroll-cues="ready" (tools/browser_check.py waits for
   it before it measures).

   A table wider than its box (dppca-wide-table) keeps its caption in view:
   the stylesheet sets the caption sticky at the box's left edge and no wider
   than the box, and the script leaves the caption out of the edge's fade
   (the box's --dppca-unfaded: the height the fade spares, from the top). On
   a phone the stylesheet keeps a short cell of such a table on one line
   (dppca-short-cell: at most 240 px on one line) and lets a longer one wrap
   in about two lines (--dppca-cell-width), so that the columns the reader
   scrolls to are not wrapped word by word into tall rows.

   On a screen narrower than 600 px, a table that would scroll and is wider
   than 1.5 times its box, or that would show fewer than half of its columns
   whole as the page opens, is stacked instead (dppca-stacked): each body row
   becomes a block titled by its first cell (or its row header), and each
   cell shows its column's header as a label beside its value. The labels
   are copies of the header cells' nodes, typeset formulas included (MathJax
   has replaced their TeX by then), the levels of a multi-level header joined
   by " · "; each cell also gets the label's text in data-label. A table
   without header cells keeps its scroll box. In print, and on wider screens,
   the stylesheet ignores the class: labels hidden, the table as before.

   Every figure's image becomes a link to its own file (a.dppca-full-size,
   with a "full size" hint the stylesheet shows on narrow screens only): a
   phone shows a figure at the column's width, its text at 5 to 7 pt; the
   file alone can be zoomed. The browser check fails at 390 px on a figure
   whose text is below 8 pt there without that link.
*/
(function () {
  "use strict";
  var BOXES =
    ".bd-article mjx-container, .bd-article div.output.text_html, " +
    ".bd-article div.cell_output div.output, " +
    ".bd-article .pst-scrollable-table-container, .bd-article .table-wrapper, " +
    ".bd-article div.cell_output pre, .bd-article div.highlight pre";
  var SLACK = 1; // px of rounding before a box counts as scrolling

  function scrolls(el) {
    var x = getComputedStyle(el).overflowX;
    return x === "auto" || x === "scroll";
  }

  function mark(el) {
    var more = scrolls(el) && el.scrollWidth > el.clientWidth + SLACK;
    var left = more && el.scrollLeft > SLACK;
    var right =
      more && el.scrollLeft + el.clientWidth < el.scrollWidth - SLACK;
    el.classList.toggle("dppca-more-left", left);
    el.classList.toggle("dppca-more-right", right);
  }

  // The block whose content box holds an inline element: its width.
  function columnWidth(el) {
    for (var a = el.parentElement; a; a = a.parentElement) {
      var s = getComputedStyle(a);
      if (s.display === "inline" || s.display === "contents") continue;
      return (
        a.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)
      );
    }
    return Infinity;
  }

  // An inline formula wider than its column (MathJax 3 never breaks inline
  // math) becomes a box that scrolls (class dppca-wide-inline); the others
  // stay plain inline text, whose glyphs may overhang their box by a few px.
  function widen() {
    var inline = document.querySelectorAll(
      '.bd-article mjx-container:not([display="true"])'
    );
    for (var i = 0; i < inline.length; i++) {
      var el = inline[i];
      var math = el.firstElementChild;
      if (!math) continue;
      var wide = math.getBoundingClientRect().width > columnWidth(el) + SLACK;
      el.classList.toggle("dppca-wide-inline", wide);
    }
  }

  // A cell of a wide table whose text on one line is at most this wide (px)
  // stays on one line; a wider one wraps in about two lines, between
  // CELL_MIN and CELL_MAX px.
  var SHORT_CELL = 240;
  var CELL_MIN = 140;
  var CELL_MAX = 260;
  var WORD = 60; // px: a long word more than half the text, for two lines

  // The width of a cell's text set on one line (the table has the class
  // dppca-measuring, which sets its cells nowrap): the text and inline
  // elements of the cell, or of its one paragraph.
  function oneLineWidth(cell) {
    var inner = cell;
    if (cell.children.length === 1 && cell.firstElementChild.tagName === "P")
      inner = cell.firstElementChild;
    var range = document.createRange();
    range.selectNodeContents(inner);
    return range.getBoundingClientRect().width;
  }

  // Each cell of a table: short (one line) or the width it wraps at; once.
  function sizeCells(table) {
    if (table.hasAttribute("data-dppca-cells")) return;
    var cells = table.querySelectorAll("th, td");
    table.classList.add("dppca-measuring");
    var widths = [];
    for (var i = 0; i < cells.length; i++) widths.push(oneLineWidth(cells[i]));
    table.classList.remove("dppca-measuring");
    for (var j = 0; j < cells.length; j++) {
      var w = widths[j];
      if (w <= SHORT_CELL) cells[j].classList.add("dppca-short-cell");
      else
        cells[j].style.setProperty(
          "--dppca-cell-width",
          Math.round(Math.min(CELL_MAX, Math.max(CELL_MIN, w / 2 + WORD))) + "px"
        );
    }
    table.setAttribute("data-dppca-cells", "");
  }

  // Tables are fitted once MathJax has typeset them (ready), and again only
  // when their box's width changes (a phone's toolbar that hides on
  // scrolling resizes the window, not the box) or when forced (load).
  var typeset = false;
  var fitWidth = typeof WeakMap === "function" ? new WeakMap() : null;

  // A table wider than its box: its cells sized for scrolling, and the class
  // that applies that sizing (on a phone) and makes its caption sticky; on a
  // narrow screen, a table much wider than its box is stacked instead.
  // Measured without either class: at a width where the table fits as the
  // theme lays it out, it loses them again. The reader's place in the box is
  // kept.
  function fitTable(table, box, force) {
    var narrow = !!(stackMedia && stackMedia.matches);
    var key = box.clientWidth + (narrow ? " narrow" : "");
    if (!force && fitWidth && fitWidth.get(table) === key) return;
    if (fitWidth) fitWidth.set(table, key);
    var left = box.scrollLeft;
    table.classList.remove("dppca-wide-table", "dppca-stacked");
    if (box.scrollWidth > box.clientWidth + SLACK) {
      sizeCells(table);
      table.classList.add("dppca-wide-table");
      if (narrow && tooWide(table, box) && prepareStack(table)) {
        table.classList.remove("dppca-wide-table");
        table.classList.add("dppca-stacked");
      }
    }
    box.scrollLeft = left;
  }

  // Stacking: below this width (the stylesheet's media query too), a table
  // wider than STACK_RATIO times its box is stacked, and so is one that
  // shows fewer than half of its columns whole as its box opens.
  var STACK_MEDIA = "screen and (max-width: 599.98px)";
  var STACK_RATIO = 1.5;
  var stackMedia = window.matchMedia ? window.matchMedia(STACK_MEDIA) : null;

  // The column of each cell of ``rows``, row and column spans counted: one
  // list of {cell, col, span} per row.
  function cellColumns(rows) {
    var taken = [];
    var out = [];
    for (var r = 0; r < rows.length; r++) {
      taken[r] = taken[r] || [];
      var row = [];
      var c = 0;
      var cells = rows[r].cells;
      for (var i = 0; i < cells.length; i++) {
        while (taken[r][c]) c++;
        var cs = Math.max(1, cells[i].colSpan);
        var rs = Math.max(1, cells[i].rowSpan);
        for (var dr = 0; dr < rs && r + dr < rows.length; dr++) {
          taken[r + dr] = taken[r + dr] || [];
          for (var dc = 0; dc < cs; dc++) taken[r + dr][c + dc] = true;
        }
        row.push({ cell: cells[i], col: c, span: cs });
        c += cs;
      }
      out.push(row);
    }
    return out;
  }

  // Columns shown whole at the box's left end, and all columns: counted on
  // the row with the most cells (a header over three columns is not three
  // columns shown).
  function columnsShown(table, box) {
    var b = box.getBoundingClientRect();
    var right = b.left + box.clientLeft - box.scrollLeft + box.clientWidth;
    var best = [];
    for (var r = 0; r < table.rows.length; r++) {
      if (table.rows[r].cells.length > best.length) best = table.rows[r].cells;
    }
    var shown = 0;
    var total = 0;
    for (var j = 0; j < best.length; j++) {
      total += best[j].colSpan;
      if (best[j].getBoundingClientRect().right <= right + SLACK)
        shown += best[j].colSpan;
    }
    return [shown, total];
  }

  function tooWide(table, box) {
    if (box.scrollWidth > STACK_RATIO * box.clientWidth) return true;
    var seen = columnsShown(table, box);
    return 2 * seen[0] < seen[1];
  }

  function isBlank(cell) {
    return (
      !cell.textContent.trim() && !cell.querySelector("mjx-container, img")
    );
  }

  // The header rows (thead, or a first row of header cells) and body rows.
  function tableParts(table) {
    var head = table.tHead ? [].slice.call(table.tHead.rows) : [];
    var body = [];
    for (var b = 0; b < table.tBodies.length; b++)
      body = body.concat([].slice.call(table.tBodies[b].rows));
    if (!head.length && body.length) {
      var first = body[0].cells;
      var allTh = first.length > 0;
      for (var i = 0; i < first.length; i++)
        if (first[i].tagName !== "TH") allTh = false;
      if (allTh && body.length > 1) head = [body.shift()];
    }
    return { head: head, body: body };
  }

  // The TeX of each typeset formula, by its container (for data-label).
  function texSources() {
    var tex = new Map();
    var mj = window.MathJax;
    var items = mj && mj.startup && mj.startup.document;
    items = items && items.math;
    if (items && typeof items[Symbol.iterator] === "function") {
      for (var it = items[Symbol.iterator](), n = it.next(); !n.done;
           n = it.next()) {
        if (n.value.typesetRoot) tex.set(n.value.typesetRoot, n.value.math);
      }
    }
    return tex;
  }

  // A header cell's text, each formula as its TeX between \( and \).
  function plainText(node, tex) {
    var out = "";
    for (var c = node.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) out += c.data;
      else if (c.nodeType !== 1) continue;
      else if (c.tagName === "MJX-CONTAINER")
        out += tex.has(c) ? "\\(" + tex.get(c).trim() + "\\)" : c.textContent;
      else out += plainText(c, tex);
    }
    return out.replace(/\s+/g, " ").trim();
  }

  // A copy of a header cell's content for a label: its nodes as they are
  // laid out (a typeset formula stays typeset), without ids (the page's
  // anchors stay unique) and out of the keyboard's way.
  function copyHeader(cell, into) {
    var from = cell;
    if (cell.children.length === 1 && cell.firstElementChild.tagName === "P")
      from = cell.firstElementChild;
    for (var c = from.firstChild; c; c = c.nextSibling) {
      var copy = c.cloneNode(true);
      if (copy.nodeType === 1) {
        var all = [copy].concat([].slice.call(copy.querySelectorAll("*")));
        for (var i = 0; i < all.length; i++) {
          all[i].removeAttribute("id");
          if (all[i].hasAttribute("tabindex") || all[i].tagName === "A")
            all[i].setAttribute("tabindex", "-1");
        }
      }
      into.appendChild(copy);
    }
  }

  // Labels and value wrappers for stacking, once; false when the table has
  // no header to label its cells with.
  function prepareStack(table) {
    var done = table.getAttribute("data-dppca-stack");
    if (done) return done === "ok";
    var parts = tableParts(table);
    var heads = []; // per column: its header cells, top level first
    var grid = cellColumns(parts.head);
    for (var r = 0; r < grid.length; r++) {
      for (var i = 0; i < grid[r].length; i++) {
        var h = grid[r][i];
        if (isBlank(h.cell)) continue;
        for (var c = h.col; c < h.col + h.span; c++) {
          heads[c] = heads[c] || [];
          if (heads[c].indexOf(h.cell) < 0) heads[c].push(h.cell);
        }
      }
    }
    var labelled = heads.some(function (l) {
      return l && l.length;
    });
    if (!labelled || !parts.body.length) {
      table.setAttribute("data-dppca-stack", "no");
      return false;
    }
    var tex = texSources();
    var body = cellColumns(parts.body);
    for (var b = 0; b < body.length; b++) {
      var title = null;
      for (var k = 0; k < body[b].length; k++) {
        var cell = body[b][k].cell;
        if (cell.tagName === "TH" && !title) title = cell;
      }
      title = title || (body[b].length ? body[b][0].cell : null);
      for (var m = 0; m < body[b].length; m++) {
        var cellAt = body[b][m];
        var td = cellAt.cell;
        var levels = heads[cellAt.col] || [];
        var value = document.createElement("div");
        value.className = "dppca-cell-value";
        if (isBlank(td)) td.classList.add("dppca-blank-cell");
        while (td.firstChild) value.appendChild(td.firstChild);
        if (levels.length) {
          var label = document.createElement("span");
          label.className = "dppca-cell-label";
          var text = [];
          for (var l = 0; l < levels.length; l++) {
            if (l) label.appendChild(document.createTextNode(" \u00b7 "));
            copyHeader(levels[l], label);
            text.push(plainText(levels[l], tex));
          }
          td.setAttribute("data-label", text.join(" \u00b7 "));
          td.appendChild(label);
        } else td.classList.add("dppca-unlabelled");
        td.appendChild(value);
        if (td === title) td.classList.add("dppca-row-title");
      }
    }
    table.setAttribute("data-dppca-stack", "ok");
    return true;
  }

  // The fade of a box's edge spares its caption: the height, from the box's
  // top, that stays unfaded (the stylesheet's first mask layer).
  function spareCaption(el) {
    var caption = el.querySelector(":scope > table > caption");
    if (!caption) return;
    var top = el.getBoundingClientRect().top;
    var bottom = caption.getBoundingClientRect().bottom;
    el.style.setProperty(
      "--dppca-unfaded",
      Math.max(0, Math.ceil(bottom - top)) + "px"
    );
  }

  function update(force) {
    var boxes = document.querySelectorAll(BOXES);
    for (var i = 0; typeset && i < boxes.length; i++) {
      var table = boxes[i].querySelector(":scope > table");
      if (table) fitTable(table, boxes[i], force === true);
    }
    widen(); // after the tables: a stacked cell is narrower than its column
    for (var j = 0; j < boxes.length; j++) {
      mark(boxes[j]);
      spareCaption(boxes[j]);
    }
  }

  // Each figure's image: a link to its own file, which a phone can zoom.
  function linkFigures() {
    var images = document.querySelectorAll(".bd-article figure img");
    for (var i = 0; i < images.length; i++) {
      var img = images[i];
      if (img.closest("a")) continue;
      var link = document.createElement("a");
      link.className = "dppca-full-size";
      link.href = img.getAttribute("src");
      link.title = "Open the figure alone, at full size";
      var hint = document.createElement("span");
      hint.className = "dppca-full-size-hint";
      hint.setAttribute("aria-hidden", "true");
      hint.textContent = "\u2922 Tap to open the figure at full size";
      img.parentNode.insertBefore(link, img);
      link.appendChild(img);
      link.appendChild(hint);
    }
  }

  var pending = false;
  function soon() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () {
      pending = false;
      update();
    });
  }

  // scroll events do not bubble: catch them on the way down
  document.addEventListener(
    "scroll",
    function (event) {
      var el = event.target;
      if (el && el.nodeType === 1 && el.matches(BOXES)) mark(el);
    },
    { capture: true, passive: true }
  );
  document.addEventListener("toggle", soon, true); // <details> of hidden outputs
  window.addEventListener("resize", function () {
    update(false);
  });
  window.addEventListener("load", function () {
    update(true);
  });
  document.addEventListener("DOMContentLoaded", function () {
    linkFigures();
    update(false);
  });

  function ready() {
    linkFigures();
    typeset = true;
    update(true);
    document.documentElement.setAttribute("data-dppca-scroll-cues", "ready");
  }
  function hasMathJax() {
    var scripts = document.scripts;
    for (var i = 0; i < scripts.length; i++) {
      if (/mathjax/i.test(scripts[i].getAttribute("src") || "")) return true;
    }
    return false;
  }
  function afterMathJax(tries) {
    var mj = window.MathJax;
    if (!hasMathJax()) return ready(); // a page without formulas
    if (mj && mj.startup && mj.startup.promise) {
      mj.startup.promise
        .then(function () {
          return document.fonts ? document.fonts.ready : null;
        })
        .then(ready, ready);
    } else if (tries > 0) {
      setTimeout(function () {
        afterMathJax(tries - 1);
      }, 100);
    } else {
      ready(); // MathJax never started: the check reports that itself
    }
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      afterMathJax(50);
    });
  } else {
    afterMathJax(50);
  }
})();
