/* The book's search: ranking and snippets (issue 40). Sphinx inlines this file into
   _static/language_data.js (html_search_scorer, set by tools/book_html_fixes.py), which the
   search page loads right after searchtools.js; the search runs once the page has loaded.

   - Ranking: Sphinx scores a word in any heading of a page as it scores one in the page's
     title and breaks ties alphabetically, so a search for "Wishart" listed three pages that
     only have a section on it before chapter 3, "Laplace and Wishart input perturbation".
     A page whose own title holds every word of the query now comes first (a word of the
     title counts if it has the query word's stem, as Sphinx compares words, and one of the
     two begins with the other: "mechanisms" finds "mechanism", "sensitivity" does not find
     "sensitive"); among such pages, the one whose title the query fills the most.
   - Snippets: Sphinx takes a result's snippet from the text of the page's main block, which
     holds the formulas as TeX ("\(\ell_1\)"), the code cells and their outputs, and the
     page's own table of contents. The snippet is now taken from the article alone, with
     its title (the result's link shows it), code blocks, outputs and display formulas left
     out, each inline formula shown as "…", and runs of white space collapsed (the 240
     characters of a snippet are then text). A glossary term's snippet is the term and its
     definition, not the term alone.

   tools/browser_check.py checks both on the built book. */

/* Sphinx 7.4's weights (searchtools.js), unchanged, and the score of a page title match. */
var Scorer = Object.assign(
  typeof Scorer === "undefined"
    ? {
        objNameMatch: 11,
        objPartialMatch: 6,
        objPrio: { 0: 15, 1: 5, 2: -5 },
        objPrioDefault: 0,
        title: 15,
        partialTitle: 7,
        term: 5,
        partialTerm: 2,
      }
    : Scorer,
  {
    // added to a page whose title holds the whole query: more than any score Sphinx
    // gives (at most 100, an exact index entry)
    pageTitleMatch: 1000,
    score: (result) => DppcaSearch.score(result),
  },
);

var DppcaSearch = {
  // the words of the query being run, lower case, without stop words and excluded
  // words (Search._parseQuery, wrapped below)
  words: null,

  // a page title as text: no HTML (the section number's span), no leading number
  plainTitle: (title) => {
    const text = new DOMParser().parseFromString(title, "text/html").body.textContent;
    return text.replace(/^\s*[\d.]+\s+/, "").trim();
  },

  // whether a word of a title is the query's word (see the top of the file)
  sameWord: (titleWord, queryWord, stem) =>
    (titleWord.startsWith(queryWord) || queryWord.startsWith(titleWord)) &&
    stem(titleWord) === stem(queryWord),

  score: (result) => {
    const [docname, title, anchor, descr, score] = result;
    const query = DppcaSearch.words;
    // the page itself, as the full-text search lists it (a section or an object of the
    // page has an anchor or a description)
    if (!query || query.size === 0 || anchor || descr) return score;
    const text = DppcaSearch.plainTitle(title);
    const stemmer = new Stemmer();
    const stem = (w) => stemmer.stemWord(w);
    const words = splitQuery(text.toLowerCase());
    const found = words.filter((w) =>
      [...query].some((q) => DppcaSearch.sameWord(w, q, stem)),
    );
    const all = [...query].every((q) =>
      found.some((w) => DppcaSearch.sameWord(w, q, stem)),
    );
    if (!all) return score;
    // how much of the title the query's words fill, 0 to 1
    const share = found.reduce((n, w) => n + w.length, 0) / Math.max(text.length, 1);
    return score + Scorer.pageTitleMatch + Math.round(100 * share);
  },

  // what a snippet should not show: the page's title, code cells, outputs, display
  // formulas, buttons
  dropped: [
    "h1",
    ".headerlink",
    "script",
    "style",
    "button",
    "pre",
    "div.highlight",
    "div.cell_input",
    "div.cell_output",
    "div.output",
    "div.math",
  ].join(", "),

  htmlToText: (htmlString, anchor) => {
    const doc = new DOMParser().parseFromString(htmlString, "text/html");
    const main =
      doc.querySelector("article.bd-article") || doc.querySelector('[role="main"]');
    if (!main) return "";
    main.querySelectorAll(DppcaSearch.dropped).forEach((el) => el.remove());
    main.querySelectorAll("span.math, .math").forEach((el) => el.replaceWith("…"));
    let block = main;
    if (anchor) {
      const target = doc.getElementById(decodeURIComponent(anchor.slice(1)));
      if (target && main.contains(target)) block = target;
    }
    let text = block.textContent;
    // a term of a definition list (the glossary): the term and its definition
    if (block.tagName === "DT" && block.nextElementSibling) {
      text += " " + block.nextElementSibling.textContent;
    }
    return text.replace(/\s+/g, " ").trim();
  },
};

if (typeof Search !== "undefined") {
  const parseQuery = Search._parseQuery;
  Search._parseQuery = (query) => {
    const parsed = parseQuery(query);
    DppcaSearch.words = parsed[3];
    return parsed;
  };
  Search.htmlToText = DppcaSearch.htmlToText;
}
