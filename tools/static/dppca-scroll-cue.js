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

  function update() {
    widen();
    var boxes = document.querySelectorAll(BOXES);
    for (var i = 0; i < boxes.length; i++) mark(boxes[i]);
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
  window.addEventListener("resize", update);
  window.addEventListener("load", update);
  document.addEventListener("DOMContentLoaded", update);

  function ready() {
    update();
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
