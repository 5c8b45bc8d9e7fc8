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
  // that applies that sizing (on a phone) and makes its caption sticky.
  // Measured without the class: at a width where the table fits as the
  // theme lays it out, it loses the class again. The reader's place in the
  // box is kept.
  function fitTable(table, box, force) {
    var width = box.clientWidth;
    if (!force && fitWidth && fitWidth.get(table) === width) return;
    if (fitWidth) fitWidth.set(table, width);
    var left = box.scrollLeft;
    table.classList.remove("dppca-wide-table");
    if (box.scrollWidth > box.clientWidth + SLACK) {
      sizeCells(table);
      table.classList.add("dppca-wide-table");
    }
    box.scrollLeft = left;
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
    widen();
    var boxes = document.querySelectorAll(BOXES);
    for (var i = 0; typeset && i < boxes.length; i++) {
      var table = boxes[i].querySelector(":scope > table");
      if (table) fitTable(table, boxes[i], force === true);
    }
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
