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
     out, each inline formula shown as plain text read from its TeX ("\(\ell_1\)" as "ℓ₁",
     "\(A = X^\top X/n\)" as "A = XᵀX/n", DppcaSearch.texToText below) or, when it cannot be
     read so (a matrix, a formula of more than 60 characters), as "…", and runs of white
     space collapsed (the 240 characters of a snippet are then text). A glossary term's
     snippet is the term and its definition, not the term alone.

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
  // formulas, buttons, the label of a hidden code cell ("Show code cell source")
  dropped: [
    "h1",
    "details.hide > summary",
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
    main
      .querySelectorAll("span.math, .math")
      .forEach((el) => el.replaceWith(DppcaSearch.formulaText(el.textContent)));
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

/* An inline formula as text, for the snippets: a small reader of the TeX the book writes
   inline. Greek letters and symbols become their Unicode characters, sub- and superscripts
   Unicode ones where every character has one ("ℓ₁", "Xᵀ", "10⁻⁵", else "q_F", "ℝ^(d×k)"),
   fractions "a/b" (parenthesised where needed), roots "√d", "√(2 ln(1.25/δ))"; font commands,
   \left and \right and braces are dropped, and spaces put as TeX puts them (around "=",
   binary "+", after a comma, between "ln" and its argument); "\dots" is "...", as "…"
   stands for a formula not read. null for what it does not know (an environment, "\\", an
   unknown command) and for a result longer than 60 characters. */
DppcaSearch.texToText = (() => {
  const MAX = 60;
  const FAIL = new Error("TeX the snippet reader does not know");
  const fail = () => {
    throw FAIL;
  };

  // commands: name -> [class, text]; the classes space as TeX spaces them: ord, op (log, ∑),
  // bin (+), rel (=), open, close, punct, space, nospace (\!)
  const SYMBOLS = {};
  const add = (cls, table) => {
    for (const [name, text] of Object.entries(table)) SYMBOLS[name] = [cls, text];
  };
  add("ord", {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ϵ", varepsilon: "ε",
    zeta: "ζ", eta: "η", theta: "θ", vartheta: "ϑ", iota: "ι", kappa: "κ", lambda: "λ",
    mu: "μ", nu: "ν", xi: "ξ", pi: "π", varpi: "ϖ", rho: "ρ", varrho: "ϱ", sigma: "σ",
    varsigma: "ς", tau: "τ", upsilon: "υ", phi: "ϕ", varphi: "φ", chi: "χ", psi: "ψ",
    omega: "ω", Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Xi: "Ξ", Pi: "Π",
    Sigma: "Σ", Upsilon: "Υ", Phi: "Φ", Psi: "Ψ", Omega: "Ω",
    ell: "ℓ", infty: "∞", partial: "∂", nabla: "∇", emptyset: "∅", varnothing: "∅",
    forall: "∀", exists: "∃", prime: "′", top: "⊤", bot: "⊥", triangle: "△", angle: "∠",
    square: "□", hbar: "ℏ", dagger: "†", dots: "...", ldots: "...", cdots: "⋯",
    vdots: "⋮", ddots: "⋱", "|": "‖", Vert: "‖", vert: "|", "%": "%", "#": "#", "&": "&",
    _: "_", $: "$",
    // the book's macros (MathJax's tex.macros, _config.yml)
    R: "ℝ", E: "𝔼",
  });
  add("op", { sum: "∑", prod: "∏", int: "∫", oint: "∮", bigcup: "⋃", bigcap: "⋂" });
  for (const name of [
    "log", "ln", "exp", "sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh",
    "arcsin", "arccos", "arctan", "min", "max", "sup", "inf", "lim", "det", "dim", "ker",
    "arg", "deg", "gcd", "Pr", "tr", "diag",
  ]) {
    SYMBOLS[name] = ["op", name];
  }
  add("bin", {
    pm: "±", mp: "∓", times: "×", cdot: "·", ast: "∗", star: "⋆", circ: "∘",
    otimes: "⊗", oplus: "⊕", cap: "∩", cup: "∪", setminus: "∖", wedge: "∧", vee: "∨",
    div: "÷", bmod: "mod",
  });
  add("rel", {
    le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠", approx: "≈", sim: "∼",
    simeq: "≃", cong: "≅", equiv: "≡", propto: "∝", in: "∈", notin: "∉", ni: "∋",
    subset: "⊂", subseteq: "⊆", supset: "⊃", supseteq: "⊇", to: "→", rightarrow: "→",
    leftarrow: "←", gets: "←", mapsto: "↦", Rightarrow: "⇒", Leftarrow: "⇐",
    Leftrightarrow: "⇔", leftrightarrow: "↔", iff: "⟺", implies: "⟹", preceq: "⪯",
    succeq: "⪰", prec: "≺", succ: "≻", ll: "≪", gg: "≫", lesssim: "≲", gtrsim: "≳",
    perp: "⊥", mid: "|", parallel: "∥", asymp: "≍", leqslant: "⩽", geqslant: "⩾",
  });
  add("open", { langle: "⟨", lceil: "⌈", lfloor: "⌊", "{": "{", lvert: "|", lVert: "‖" });
  add("close", { rangle: "⟩", rceil: "⌉", rfloor: "⌋", "}": "}", rvert: "|", rVert: "‖" });
  add("punct", { colon: ":" });
  for (const name of [",", ":", ";", ">", " ", "quad", "qquad", "enspace", "thinspace"]) {
    SYMBOLS[name] = ["space", " "];
  }
  SYMBOLS["!"] = ["nospace", ""];
  SYMBOLS.negthinspace = ["nospace", ""];
  // characters: what is not here is an ord
  const CHARS = {
    "+": ["bin", "+"], "-": ["bin", "−"], "*": ["bin", "∗"], "=": ["rel", "="],
    "<": ["rel", "<"], ">": ["rel", ">"], ":": ["rel", ":"], ",": ["punct", ","],
    ";": ["punct", ";"], "(": ["open", "("], "[": ["open", "["], ")": ["close", ")"],
    "]": ["close", "]"], "~": ["space", " "],
  };

  const FONTS = /^(mathrm|mathit|mathbf|mathsf|mathtt|mathnormal|boldsymbol|bm|pmb|mathop)$/;
  const TEXTS = /^(text|textrm|textit|textbf|textsf|texttt|textnormal|mbox|hbox)$/;
  const SWITCHES =
    /^(rm|bf|it|sf|tt|cal|displaystyle|textstyle|scriptstyle|scriptscriptstyle|limits|nolimits)$/;
  const SIZES = /^((big|Big|bigg|Bigg)[lrm]?|left|right|middle)$/;
  const ACCENTS = {
    hat: "\u0302", widehat: "\u0302", tilde: "\u0303", widetilde: "\u0303", bar: "\u0304",
    overline: "\u0305", vec: "\u20d7", dot: "\u0307", ddot: "\u0308", check: "\u030c",
    breve: "\u0306", underline: "\u0332",
  };
  const FRACTIONS = { "1/2": "½", "1/3": "⅓", "2/3": "⅔", "1/4": "¼", "3/4": "¾", "1/8": "⅛" };

  // Unicode sub- and superscripts; a script is written with them if each of its
  // characters has one
  const table = (from, to) => {
    const out = {};
    [...from].forEach((c, k) => (out[c] = [...to][k]));
    return out;
  };
  const SUP = table(
    "0123456789+−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδθφχ⊤′∗",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᶿᵠᵡᵀ′*",
  );
  const SUB = table("0123456789+−=()aehijklmnoprstuvxβγρφχ", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ");
  for (const t of [SUP, SUB]) for (const c of Object.values(t)) t[c] = c;
  const SCRIPT_CHARS = [...new Set([...Object.values(SUP), ...Object.values(SUB)])]
    .filter((c) => !/[\x00-\x7f]/.test(c))
    .join("");
  // (and is short: "ᵢⱼ", "ₖ₊₁", "10⁻¹²", but "λ_max", "e^(xᵀBx)", easier to read)
  const script = (text, chars, mark) => {
    if (!text) return "";
    const short = [...text].length <= 2 || (text.match(/\p{L}/gu) || []).length <= 1;
    if (short && [...text].every((c) => chars[c])) {
      return [...text].map((c) => chars[c]).join("");
    }
    // "q_F", "λ_max", "ε_DP", but "e^(vᵀBv)"
    const plain = [...text].length === 1 || /^([A-Za-z]{3,}|[A-Z]+)$/.test(text);
    return mark + (plain ? text : `(${text})`);
  };

  // letters of \mathbb, \mathcal, \mathfrak: Unicode's mathematical alphabets, with the
  // letters Unicode had before them
  const alphabet = (upper, lower, special) => (text) =>
    [...text]
      .map((c) => {
        if (special[c]) return special[c];
        if (/[A-Z]/.test(c) && upper) return String.fromCodePoint(upper + c.charCodeAt(0) - 65);
        if (/[a-z]/.test(c) && lower) return String.fromCodePoint(lower + c.charCodeAt(0) - 97);
        return c;
      })
      .join("");
  const ALPHABETS = {
    mathbb: alphabet(0x1d538, 0x1d552, {
      C: "ℂ", H: "ℍ", N: "ℕ", P: "ℙ", Q: "ℚ", R: "ℝ", Z: "ℤ", 1: "𝟙",
    }),
    mathcal: alphabet(0x1d49c, 0, {
      B: "ℬ", E: "ℰ", F: "ℱ", H: "ℋ", I: "ℐ", L: "ℒ", M: "ℳ", R: "ℛ",
    }),
    mathfrak: alphabet(0x1d504, 0x1d51e, { C: "ℭ", H: "ℌ", I: "ℑ", R: "ℜ", Z: "ℨ" }),
  };
  ALPHABETS.mathscr = ALPHABETS.mathcal;

  // a term that needs no parentheses after "√" or "/": a number, one symbol with its
  // scripts and accents, or a parenthesised expression
  const ATOM = new RegExp(`^(\\d+(\\.\\d+)?|\\p{L}\\p{M}*[${SCRIPT_CHARS}′]*)$`, "u");
  const enclosed = (text) => {
    if (!text.startsWith("(")) return false;
    let depth = 0;
    const chars = [...text];
    for (let k = 0; k < chars.length; k++) {
      if (chars[k] === "(") depth++;
      if (chars[k] === ")") depth--;
      if (depth === 0) return chars.slice(k + 1).every((c) => SCRIPT_CHARS.includes(c));
    }
    return false;
  };
  const isAtom = (text) => ATOM.test(text) || enclosed(text);
  // whether an expression has an operator or a space outside parentheses
  const hasOperator = (text) => {
    let depth = 0;
    for (const c of text) {
      if ("([{⟨⌈⌊".includes(c)) depth++;
      else if (")]}⟩⌉⌋".includes(c)) depth--;
      else if (depth === 0 && " +−=<>≤≥≠≈∼×·±∓/".includes(c)) return true;
    }
    return false;
  };

  // items of a list as text: TeX's spacing, simplified; compact (in a script) puts no
  // space around relations and binary operators nor after a comma
  const join = (items, compact) => {
    items = items.map((item) => ({ ...item }));
    // a fraction with something right after it: "(a/b)x", not "a/bx"
    items.forEach((item, k) => {
      if (!item.fraction) return;
      const next = items.slice(k + 1).find((it) => it.t !== "space" && it.t !== "nospace");
      if (next && /^(ord|open|op|text)$/.test(next.t)) item.s = `(${item.s})`;
    });
    let out = "";
    let prev = null;
    let scripted = false;
    let plain = false;
    const bars = {};
    let glue = true;
    for (const item of items) {
      if (item.t === "space") {
        out += " ";
        continue;
      }
      if (item.t === "nospace") {
        glue = false;
        continue;
      }
      let t = item.t;
      // "|" and "‖" open and close in turn: "‖sin Θ‖", "|−x|"
      const bar = item.s[0];
      if (t === "ord" && (bar === "|" || bar === "‖")) {
        bars[bar] = !bars[bar];
        t = bars[bar] ? "open" : "close";
      }
      // a sign: "−1", "(−x)", "= −1"
      if (t === "bin" && (prev === null || /^(bin|rel|open|punct|op)$/.test(prev))) t = "ord";
      let space = false;
      if (prev !== null) {
        space =
          (!compact &&
            (t === "bin" || t === "rel" || prev === "bin" || prev === "rel" || prev === "punct")) ||
          (t === "op" && /^(ord|close|op|text)$/.test(prev)) ||
          (prev === "op" && /^(ord|op|text)$/.test(t)) ||
          (prev === "op" && t === "open" && scripted) || // "max_S ⟨S, D⟩"
          (plain && /^(ord|op|text)$/.test(t) && /^[\p{L}\p{N}]/u.test(item.s));
      }
      if (space && glue) out += " ";
      out += item.s;
      prev = t;
      scripted = item.scripted;
      plain = item.plain;
      glue = true;
    }
    return out.replace(/\s+/g, " ").trim();
  };

  const tokenize = (tex) => {
    const chars = [...tex];
    const tokens = [];
    let k = 0;
    while (k < chars.length) {
      const c = chars[k];
      if (c === "\\") {
        let name = "";
        let j = k + 1;
        while (j < chars.length && /[A-Za-z]/.test(chars[j])) name += chars[j++];
        if (name) {
          while (j < chars.length && /\s/.test(chars[j])) j++; // TeX skips them
        } else {
          if (j >= chars.length) fail();
          name = /\s/.test(chars[j]) ? " " : chars[j];
          j++;
        }
        tokens.push({ cmd: name });
        k = j;
      } else if (/\s/.test(c)) {
        while (k < chars.length && /\s/.test(chars[k])) k++;
        tokens.push({ space: true });
      } else {
        tokens.push({ ch: c });
        k++;
      }
    }
    return tokens;
  };

  const parse = (tokens) => {
    let k = 0;
    const skipSpaces = () => {
      while (k < tokens.length && tokens[k].space) k++;
    };
    // items up to the "}" that closes a group, or to the end
    const list = (inGroup) => {
      const items = [];
      for (;;) {
        if (k >= tokens.length) {
          if (inGroup) fail();
          return items;
        }
        const token = tokens[k];
        if (token.ch === "}") {
          if (!inGroup) fail();
          k++;
          return items;
        }
        if (token.ch === "]" && inGroup === "]") {
          k++;
          return items;
        }
        if (token.space) k++;
        else if (token.ch === "^" || token.ch === "_" || token.ch === "'") attach(items);
        else {
          k++;
          items.push(...atom(token));
        }
      }
    };
    // a command's argument: a group or one token
    const argument = () => {
      skipSpaces();
      if (k >= tokens.length) fail();
      const token = tokens[k++];
      if (token.ch === "{") return list(true);
      if (token.ch === "}" || token.ch === "^" || token.ch === "_") fail();
      return atom(token);
    };
    const argumentText = (compact) => join(argument(), compact);
    // a sub- or superscript, or a prime, on the last item
    const attach = (items) => {
      const last = items[items.length - 1];
      if (!last || last.t === "space" || last.t === "nospace") items.push({ t: "ord", s: "" });
      const base = items[items.length - 1];
      const token = tokens[k++];
      base.scripted = true;
      let s = "′";
      if (token.ch === "^") s = script(argumentText(true), SUP, "^");
      if (token.ch === "_") s = script(argumentText(true), SUB, "_");
      base.s += s;
      // "e^ε q", not "e^εq"
      base.plain = /^[_^][^(]/.test(s);
    };
    // \text{...}: its characters and spaces as they are
    const text = () => {
      skipSpaces();
      if (tokens[k] && tokens[k].ch !== "{") return join(argument(), true);
      k++;
      let out = "";
      let depth = 0;
      for (;;) {
        const token = tokens[k++];
        if (!token) fail();
        if (token.ch === "}" && depth === 0) return out;
        if (token.ch === "{") depth++;
        else if (token.ch === "}") depth--;
        else if (token.space) out += " ";
        else if (token.ch !== undefined) {
          if ("$&#%\\^_".includes(token.ch)) fail();
          out += token.ch;
        } else if (SYMBOLS[token.cmd] && SYMBOLS[token.cmd][0] !== "nospace") {
          out += SYMBOLS[token.cmd][1];
        } else fail();
      }
    };
    const atom = (token) => {
      if (token.ch !== undefined) {
        const c = token.ch;
        if (c === "{") {
          const inner = list(true);
          if (inner.length === 0) return [{ t: "ord", s: "" }];
          // "{,}", "{=}": an ordinary symbol
          if (inner.length === 1 && /^(bin|rel|punct)$/.test(inner[0].t)) {
            return [{ t: "ord", s: inner[0].s }];
          }
          return inner;
        }
        if ("&$#%\\".includes(c)) fail();
        const [t, s] = CHARS[c] || ["ord", c];
        return [{ t, s }];
      }
      const name = token.cmd;
      if (SYMBOLS[name]) {
        const [t, s] = SYMBOLS[name];
        return [{ t, s }];
      }
      if (SWITCHES.test(name)) return [];
      if (SIZES.test(name)) {
        skipSpaces();
        // \left. and \right.: no delimiter
        if (/^(left|right|middle)$/.test(name) && tokens[k] && tokens[k].ch === ".") k++;
        return [];
      }
      if (FONTS.test(name)) return argument();
      if (TEXTS.test(name)) return [{ t: "text", s: text() }];
      if (name === "operatorname") {
        if (tokens[k] && tokens[k].ch === "*") k++;
        return [{ t: "op", s: argumentText(true) }];
      }
      if (ALPHABETS[name]) return [{ t: "ord", s: ALPHABETS[name](argumentText(true)) }];
      if (ACCENTS[name]) {
        const mark = ACCENTS[name];
        const s = argumentText(true);
        const letters = s.match(/\P{M}\p{M}*/gu) || [];
        if (letters.length === 1) return [{ t: "ord", s: s + mark }];
        if (name === "overline" || name === "underline") {
          return [{ t: "ord", s: letters.map((c) => c + mark).join("") }];
        }
        return [{ t: "ord", s }];
      }
      if (/^[dtc]?frac$/.test(name)) {
        const num = argumentText(false);
        const den = argumentText(false);
        if (!num || !den) fail();
        if (FRACTIONS[`${num}/${den}`]) return [{ t: "ord", s: FRACTIONS[`${num}/${den}`] }];
        const s =
          (hasOperator(num) ? `(${num})` : num) + "/" + (isAtom(den) ? den : `(${den})`);
        return [{ t: "ord", s, fraction: true }];
      }
      if (/^[dt]?binom$/.test(name)) {
        const n = argumentText(false);
        return [{ t: "ord", s: `C(${n}, ${argumentText(false)})` }];
      }
      if (name === "sqrt") {
        let root = "√";
        skipSpaces();
        if (tokens[k] && tokens[k].ch === "[") {
          k++;
          const index = join(list("]"), true);
          root = { 2: "√", 3: "∛", 4: "∜" }[index] || script(index, SUP, "^") + "√";
        }
        const s = argumentText(false);
        if (!s) fail();
        return [{ t: "ord", s: root + (isAtom(s) ? s : `(${s})`) }];
      }
      if (/^(overset|underset|stackrel)$/.test(name)) {
        const over = argumentText(true);
        const base = argument();
        if (base.length === 0) fail();
        const last = { ...base[base.length - 1] };
        last.s += name === "underset" ? script(over, SUB, "_") : script(over, SUP, "^");
        return [...base.slice(0, -1), last];
      }
      if (name === "not") {
        const next = argument();
        if (next.length !== 1) fail();
        return [{ t: "rel", s: (next[0].s + "\u0338").normalize("NFC") }];
      }
      if (name === "pmod") return [{ t: "text", s: ` (mod ${argumentText(false)})` }];
      return fail(); // \begin, \\, a command this reader does not know
    };
    const items = list(false);
    return items;
  };

  return (tex) => {
    try {
      const text = join(parse(tokenize(tex)), false).normalize("NFC");
      return text && [...text].length <= MAX ? text : null;
    } catch (error) {
      if (error !== FAIL) console.warn("dppca-search: formula", tex, error);
      return null;
    }
  };
})();

// an inline formula's element text as the snippet shows it: Sphinx reads the page's HTML,
// where MathJax has not run, so the element holds the TeX ("\(\ell_1\)")
DppcaSearch.formulaText = (tex) => {
  const body = tex.trim().replace(/^\\\(([^]*)\\\)$|^\\\[([^]*)\\\]$|^\$+([^]*?)\$+$/, "$1$2$3");
  return DppcaSearch.texToText(body) || "…";
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
