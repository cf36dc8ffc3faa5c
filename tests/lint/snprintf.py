#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lint-snprintf: no new snprintf() whose truncation goes unchecked.

A path, a name, a message sent on a socket or a text written to tracefs
that snprintf() cut short is another path, name or message: build those
with trawl_path_fmt() (common/common.h; trawl_msg_fmt() for text people
read, which marks a cut), or check the
return value where the call stands. An snprintf() into a buffer that is
provably big enough ("%d" into 16 bytes) may stay unchecked, but then it
is listed in snprintf-allow.txt beside this script, with the reason.

Scans every .c and .h file of src/ for snprintf() calls (not vsnprintf,
which only helpers call). A call is fine when
  - checked: its result goes into a comparison with a size, directly or
    through a variable compared within the next lines; or
  - proven here: its size is sizeof(DEST) of a char array declared in the
    part with a size in digits (or a macro defined as digits), and its
    format can only make less: literal text, integers (at most 20
    characters each, or their width), %c, and %.Ns strings (N characters).
Every other call must be in the allowlist:

  FILE<TAB>CALL<TAB>WHY

CALL is the call's text with white space folded, from "snprintf(" to its
closing parenthesis; one line per occurrence. Fails (exit 1) on an
unchecked call that is not listed, and on a listed one that no longer
exists (so the list only shrinks with the code).

  snprintf.py [SOURCE_DIR]     check a tree (default: this one)
  snprintf.py --count [DIR]    print the counts: calls, checked, unchecked
  snprintf.py --list [DIR]     print the unchecked calls, as allowlist lines
  snprintf.py --self-test      check the classification on made-up calls
"""
import collections
import functools
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CALL = re.compile(r'(?<![A-Za-z0-9_])snprintf\s*\(')
# What may stand between a call and the size it is compared to.
COMPARE = re.compile(r'^\s*(>=|<|>|<=|==|!=)')


def strip_comments(text):
    """Blanks comments and string/char contents (same length, lines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            # Keep the quotes, blank the contents (a ")" in a format is not code).
            out.append(c + re.sub(r"[^\n]", "_", text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def call_end(code, open_paren):
    depth = 0
    for k in range(open_paren, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k + 1
    return len(code)


def is_checked(code, start, end):
    """Whether the call's result is compared with something (a size)."""
    after = code[end:]
    if COMPARE.match(after):
        return True
    before = code[:start].rstrip()
    # A cast of the result, as in o += (size_t)snprintf(...), changes nothing.
    before = re.sub(r'\(\s*(unsigned\s+)?\w+\s*\)$', "", before).rstrip()
    # if (... < snprintf(...)) is as good as the other way round.
    if re.search(r'(>=|<=|<|>|==|!=)$', before):
        return True
    # n = snprintf(...) (or n += ...); then n compared within the next lines.
    m = re.search(r'([A-Za-z_][A-Za-z0-9_.>-]*)\s*\+?=$', before)
    if m and not before.endswith(("==", "!=", "<=", ">=")):
        var = re.escape(m.group(1))
        window = after[:600]
        if re.search(r'(?<![A-Za-z0-9_])%s\s*(>=|<=|<|>)(?!>)' % var, window) or \
           re.search(r'(>=|<=|<|>)\s*(\(\w+\)\s*)?%s(?![A-Za-z0-9_])' % var, window):
            return True
    return False


def split_args(inner):
    """The top-level comma-separated pieces of a call's argument text."""
    args, depth, cur, quote, esc = [], 0, [], None, False
    for ch in inner:
        if quote:
            cur.append(ch)
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    args.append("".join(cur).strip())
    return args


INT_MACRO = re.compile(r'\bPRI[diouxX](8|16|32|64|PTR|MAX)\b')
CONV = re.compile(r'%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|j|z|t|L)?([a-zA-Z%])')


def format_max(fmt_arg):
    """The longest text a format (string literals, PRI macros) can make, or None."""
    text = INT_MACRO.sub('"llu"', fmt_arg)
    pieces = re.findall(r'"((?:[^"\\]|\\.)*)"', text)
    if not pieces or re.sub(r'"((?:[^"\\]|\\.)*)"', "", text).strip():
        return None  # not only literals: a format built elsewhere
    fmt = "".join(pieces)
    fmt = re.sub(r'\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)', "E", fmt)  # an escape is one char
    total, pos = 0, 0
    for m in CONV.finditer(fmt):
        total += m.start() - pos
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        w = int(width) if width and width != "*" else 0
        if width == "*":
            return None
        if conv == "%":
            total += 1
        elif conv == "c":
            total += max(1, w)
        elif conv in "diouxX":
            total += max(20, w)
        elif conv == "s" and prec and prec != "*":
            total += max(int(prec), w)
        else:
            return None
    return total + len(fmt) - pos


@functools.lru_cache(maxsize=None)
def part_texts(*dirs):
    """The code of a part's files (comments blanked) and its numeric #defines."""
    texts = []
    for d in dirs:
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                texts.append(strip_comments(open(os.path.join(d, f), encoding="utf-8", errors="replace").read()))
    defines = {}
    for t in texts:
        for dm in re.finditer(r'^\s*#\s*define\s+(\w+)\s+\(?(\d+)\)?\s*$', t, re.M):
            defines.setdefault(dm.group(1), int(dm.group(2)))
    defines.update({"PATH_MAX": 4096, "NAME_MAX": 255})
    return texts, defines


def array_size(root, rel, dest, before=""):
    """The size of the char array @dest: its last declaration in @before (the
    file up to the call), else the smallest it is declared with in its part
    (or None)."""
    m = re.match(r'^(?:.*(?:->|\.))?([A-Za-z_]\w*)\s*(\[[^\]]*\])?$', dest.strip())
    if not m:
        return None
    name, indexed = m.group(1), bool(m.group(2))
    texts, defines = part_texts(os.path.join(root, os.path.dirname(rel)),
                                os.path.join(root, "src", "common"))

    def value(tok):
        tok = tok.strip()
        if tok.isdigit():
            return int(tok)
        return defines.get(tok)

    sizes = []
    # A declaration, possibly after others in one line: char a[8], b[N][M];
    pat = re.compile(r'\bchar\s+(?:\*?\s*\w+\s*(?:\[[^\]]*\]\s*)*(?:=[^,;]*)?,\s*)*%s\s*\[([^\]]*)\](?:\s*\[([^\]]*)\])?' % re.escape(name))
    last = None
    # A member (a->name) is declared in its struct, not in the function.
    for dm in pat.finditer(before if re.match(r'^\w+\s*(\[.*\])?$', dest.strip()) else ""):
        last = dm
    for t in ([before[last.start():last.end()]] if last else texts):
        for dm in pat.finditer(t):
            tok = dm.group(2) if indexed else dm.group(1)
            if tok is None or (not indexed and dm.group(2)):
                return None
            v = value(tok)
            if v is None:
                return None
            sizes.append(v)
    return min(sizes) if sizes else None


def is_proven(root, rel, args, before=""):
    """Whether the call cannot be cut (see the top of this file)."""
    if len(args) < 3:
        return False
    dest, size = args[0], args[1]
    sm = re.match(r'^sizeof\s*\(?\s*(.*?)\s*\)?$', size)
    if size.isdigit():
        have = int(size)
    elif sm and " ".join(sm.group(1).split()) == " ".join(dest.split()):
        have = array_size(root, rel, dest, before)
    else:
        return False
    need = format_max(args[2])
    return have is not None and need is not None and need < have


def scan(root):
    """[(file, call text, "checked" / "proven" / None)] for every snprintf() of src/."""
    found = []
    src = os.path.join(root, "src")
    for dirpath, dirnames, files in os.walk(src):
        dirnames.sort()
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            text = open(path, encoding="utf-8", errors="replace").read()
            code = strip_comments(text)
            rel = os.path.relpath(path, root)
            for m in CALL.finditer(code):
                end = call_end(code, m.end() - 1)
                call = " ".join(text[m.start():end].split())
                if is_checked(code, m.start(), end):
                    how = "checked"
                elif is_proven(root, rel, split_args(text[m.end():end - 1]), code[:m.start()]):
                    how = "proven"
                else:
                    how = None
                found.append((rel, call, how))
    return found


def read_allow(path):
    allow = collections.Counter()
    why = {}
    for num, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not parts[2].strip():
            raise SystemExit("lint-snprintf: %s:%d: not FILE<TAB>CALL<TAB>WHY" % (path, num))
        allow[(parts[0], parts[1])] += 1
        why[(parts[0], parts[1])] = parts[2]
    return allow


SELF_TEST = r"""
#define NAME_LEN 16
struct s { char name[NAME_LEN]; };
void f(struct s *x, const char *a, int i, char *out, size_t len)
{
	char path[32], small[4];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", i);          /* proven */
	snprintf(x->name, sizeof(x->name), "%.15s", a);            /* proven */
	snprintf(small, sizeof(small), "%d", i);                   /* unchecked */
	snprintf(path, sizeof(path), "%s/x", a);                   /* unchecked */
	snprintf(out, len, "%d", i);                               /* unchecked */
	if (snprintf(path, sizeof(path), "%s", a) >= (int)sizeof(path))   /* checked */
		return;
	n = snprintf(out, len, "%s, found it", a);                 /* checked */
	if (n < 0 || (size_t)n >= len)
		return;
}
"""


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "x"))
        os.makedirs(os.path.join(root, "src", "common"))
        with open(os.path.join(root, "src", "x", "a.c"), "w") as f:
            f.write(SELF_TEST)
        got = [how for _, _, how in scan(root)]
    want = ["proven", "proven", None, None, None, "checked", "checked"]
    if got != want:
        print("lint-snprintf self-test: got %s, want %s" % (got, want))
        return 1
    print("ok: the self-test's calls are classified as expected")
    return 0


def main(argv):
    if argv and argv[0] == "--self-test":
        return self_test()
    mode = "check"
    if argv and argv[0] in ("--count", "--list"):
        mode = argv.pop(0)
    root = argv[0] if argv else os.path.dirname(os.path.dirname(HERE))
    found = scan(root)
    unchecked = [(f, c) for f, c, how in found if not how]
    checked = sum(1 for f, c, how in found if how == "checked")
    proven = sum(1 for f, c, how in found if how == "proven")
    if mode == "--count":
        print("snprintf calls in src/: %d, checked: %d, proven to fit: %d, unchecked: %d" %
              (len(found), checked, proven, len(unchecked)))
        return 0
    if mode == "--list":
        for f, c in unchecked:
            print("%s\t%s\t" % (f, c))
        return 0
    allow = read_allow(os.path.join(HERE, "snprintf-allow.txt"))
    have = collections.Counter(unchecked)
    bad = 0
    for key, n in sorted(have.items()):
        if n > allow.get(key, 0):
            print("%s: unchecked snprintf (use trawl_path_fmt() or trawl_msg_fmt(), check "
                  "the result, or list a proof in snprintf-allow.txt): %s" % key)
            bad += 1
    for key, n in sorted(allow.items()):
        if n > have.get(key, 0):
            print("%s: listed in snprintf-allow.txt but not found (remove the line): %s" % key)
            bad += 1
    if bad:
        return 1
    print("ok: %d snprintf calls: %d checked, %d proven to fit here, %d listed with a reason" %
          (len(found), checked, proven, len(unchecked)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
