#!/usr/bin/env python3
"""Function and file sizes of the C++ sources, against the budget in /work/shared/STYLE.md.

Approach: blank out comments, string and char literals and preprocessor lines (keeping the
line breaks), then walk the braces. A '{' met outside any function opens one of:
  scope     namespace / class / struct / union / enum / extern "C" (functions may sit inside);
  function  the text since the last ';', '{' or '}' has a parameter list, no '=' outside
            parentheses, and only qualifiers after its last ')';
  init      a brace in a constructor's member-initializer list (the header goes on);
  other     anything else (a brace initializer of a variable, a lambda at namespace scope).
Every brace inside a function (blocks, lambdas, local classes) belongs to that function, and
every brace inside an "other" to that "other".
A function's length runs from the line of its name to the line of its closing brace.
A heuristic, not a parser: good enough for budgets, not for proofs.
"""
import os
import re
import statistics
import sys

BUDGET_MEDIAN = 12
BUDGET_P90 = 50
BUDGET_FUNCTION = 80
BUDGET_FILE = 600
EXTENSIONS = (".h", ".cpp")

SCOPE_RE = re.compile(r'^(template\s*<.*>\s*)?(typedef\s+)?(class|struct|union|enum|namespace)\b'
                      r'|^extern\s*"', re.S)
ACCESS_RE = re.compile(r'^\s*((public|private|protected)\s*:(?!:)\s*)+')
ATTRIBUTE_RE = re.compile(r'\[\[.*?\]\]', re.S)
QUALIFIERS_RE = re.compile(r'^(\s*(const|volatile|noexcept|override|final|mutable|constexpr'
                           r'|try|&&|&|noexcept\s*\(.*\)))*\s*$', re.S)
OPERATOR_RE = re.compile(r'((?:[A-Za-z_]\w*\s*::\s*)*operator\s*(?:\(\s*\)|\[\s*\]|""\s*\w+'
                         r'|[^\s\w(]+|\s[\w:\s*&<>]+?))\s*\(')
NAME_RE = re.compile(r'((?:[A-Za-z_]\w*\s*(?:<[^()]*?>)?\s*::\s*)*~?[A-Za-z_]\w*)\s*$')
NOT_PARAMS = {"decltype", "alignas", "__attribute__", "__declspec", "sizeof", "noexcept"}


def blank(text, start, end):
    """text[start:end] with everything but line breaks turned into spaces."""
    return re.sub(r'[^\n]', ' ', text[start:end])


def strip_code(src):
    """The source with comments, literals and preprocessor lines blanked; lines kept."""
    out, i, n = [], 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c == '#':                      # preprocessor line (+ continuations)
            j = i
            while j < n and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            out.append(blank(src, i, min(j, n)))
            i = min(j, n)
            continue
        if c == '\n':
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(blank(src, i, j))
            i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(blank(src, i, j))
            i = j
        elif c == 'R' and src.startswith('"', i + 1) and not (i and (src[i-1].isalnum() or src[i-1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', src[i:])
            end = src.find(')' + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + blank(src, i + 2, j))
            i = j
        elif c == '"' or (c == "'" and not is_digit_separator(src, i)):
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                j += 2 if src[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + blank(src, i + 1, j - 1) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def is_digit_separator(src, i):
    """A quote inside a number such as 1'000'000, not a char literal."""
    j = i
    while j > 0 and (src[j-1].isalnum() or src[j-1] == '_'):
        j -= 1
    return j < i and src[j].isdigit() and i + 1 < len(src) and src[i+1].isalnum()


def top_level(header):
    """header with everything inside (), [] and <> of template args replaced by spaces."""
    out, depth = [], 0
    for c in header:
        if c in '([':
            depth += 1
            out.append(c if depth == 1 else ' ')
        elif c in ')]':
            depth = max(depth - 1, 0)
            out.append(c if depth == 0 else ' ')
        else:
            out.append(c if depth == 0 else ' ')
    return ''.join(out)


def param_open(header):
    """Index of the '(' that opens the parameter list, or -1."""
    m = OPERATOR_RE.search(header)
    if m:
        return m.end() - 1
    angle = paren = 0
    for i, c in enumerate(header):
        if c == '<' and paren == 0:
            angle += 1
        elif c == '>' and paren == 0 and angle:
            angle -= 1
        elif c == '(':
            word = re.search(r'(\w+)\s*$', header[:i])
            if paren == 0 and angle == 0 and not (word and word.group(1) in NOT_PARAMS):
                return i
            paren += 1
        elif c == ')':
            paren = max(paren - 1, 0)
    return -1


def classify(header):
    """'scope', 'function', 'init' or 'other' for a '{' at scope level after `header`."""
    h = ATTRIBUTE_RE.sub(' ', header)
    h = ACCESS_RE.sub('', h).strip()
    if SCOPE_RE.match(h) and '(' not in h.split('{')[0].split(':')[0]:
        return 'scope'
    flat = top_level(h)
    if '(' not in flat:
        return 'other'
    if re.search(r'(?<![\w=!<>+\-*/%&|^])=(?!=)', re.sub(r'operator\s*\S+', '', flat)):
        return 'other'                                  # an initializer, not a body
    close = flat.rfind(')')
    rest = flat[close + 1:]
    if re.match(r'\s*:(?!:)', rest):                    # constructor with an init list
        return 'function' if re.search(r'[)}]\s*$', h) else 'init'
    if QUALIFIERS_RE.match(rest) or re.match(r'\s*(->|requires\b)', rest):
        return 'function'
    return 'other'


def function_name(header):
    h = ATTRIBUTE_RE.sub(lambda m: ' ' * len(m.group(0)), header)
    p = param_open(h)
    if p < 0:
        return '?', 0
    m = OPERATOR_RE.search(h)
    if m and m.end() - 1 == p:
        return re.sub(r'\s+', '', m.group(1)), m.start(1)
    m = NAME_RE.search(h[:p])
    if not m:
        return '?', p
    return re.sub(r'\s+', '', m.group(1)), m.start(1)


def find_functions(src):
    """[(line, name, length_in_lines, body_text)] for each function body in src."""
    code = strip_code(src)
    stack, found = [], []       # (kind, (name, name offset) for a function); 'other' and
    #                             'function' own every brace inside them
    header_start = 0
    for i, c in enumerate(code):
        in_function = any(kind in ('function', 'other') for kind, _ in stack)
        if c == '{':
            if in_function:
                stack.append(('block', 0))
                continue
            header = code[header_start:i]
            kind = classify(header)
            name_at = 0
            if kind == 'function':
                name, offset = function_name(header)
                name_at = header_start + offset
                stack.append(('function', (name, name_at)))
            else:
                stack.append((kind, 0))
            if kind != 'init':
                header_start = i + 1
        elif c == '}':
            if not stack:
                header_start = i + 1
                continue
            kind, info = stack.pop()
            if kind == 'function':
                name, name_at = info
                first = code.count('\n', 0, name_at) + 1
                last = code.count('\n', 0, i) + 1
                found.append((first, name, last - first + 1, code[name_at:i + 1]))
            if kind != 'init' and not any(k in ('function', 'other') for k, _ in stack):
                header_start = i + 1
        elif c == ';' and not in_function and not (stack and stack[-1][0] == 'init'):
            header_start = i + 1
    return found


def source_files(roots):
    for root in roots:
        if os.path.isfile(root):
            yield root
            continue
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(EXTENSIONS):
                    yield os.path.join(d, f)


def percentile(sorted_values, q):
    """Nearest-rank percentile."""
    if not sorted_values:
        return 0
    k = max(0, min(len(sorted_values) - 1, -(-len(sorted_values) * q // 100) - 1))
    return sorted_values[int(k)]


def exception_note(name, body):
    if name == 'main' or name.endswith('::main'):
        return 'main: allowed'
    if re.search(r'\bswitch\s*\(', body):
        return 'has a switch: allowed only if an opcode switch'
    return 'over budget'


def verdict(ok):
    return 'ok' if ok else 'OVER'


def main(argv):
    roots = argv[1:] or [r for r in ('src', 'tools') if os.path.isdir(r)]
    functions, big_files, n_files = [], [], 0
    for path in source_files(roots):
        with open(path, encoding='utf-8', errors='replace') as f:
            src = f.read()
        n_files += 1
        n_lines = src.count('\n') + (0 if src.endswith('\n') or not src else 1)
        if n_lines > BUDGET_FILE:
            big_files.append((n_lines, path))
        functions += [(path, line, name, length, body)
                      for line, name, length, body in find_functions(src)]

    lengths = sorted(f[3] for f in functions)
    median = statistics.median(lengths) if lengths else 0
    p90 = percentile(lengths, 90)
    long_ones = sorted((f for f in functions if f[3] > BUDGET_FUNCTION), key=lambda f: -f[3])

    print(f"size budget over {' '.join(roots)}: {n_files} files, {len(functions)} functions")
    print(f"longest {min(10, len(functions))} functions (file:line name lines):")
    for path, line, name, length, _ in sorted(functions, key=lambda f: -f[3])[:10]:
        print(f"  {path}:{line} {name} {length}")
    print(f"files over {BUDGET_FILE} lines:" + ('' if big_files else ' none'))
    for n_lines, path in sorted(big_files, reverse=True):
        print(f"  {path} {n_lines} lines")
    print(f"functions over {BUDGET_FUNCTION} lines:" + ('' if long_ones else ' none'))
    for path, line, name, length, body in long_ones:
        print(f"  {path}:{line} {name} {length} lines ({exception_note(name, body)})")
    over = [f for f in long_ones if exception_note(f[2], f[4]) == 'over budget']
    print("summary (budget in STYLE.md):")
    print(f"  functions: {len(functions)}")
    print(f"  median function length: {median:g} lines (budget <= {BUDGET_MEDIAN}: {verdict(median <= BUDGET_MEDIAN)})")
    print(f"  p90 function length: {p90} lines (budget <= {BUDGET_P90}: {verdict(p90 <= BUDGET_P90)})")
    print(f"  functions over {BUDGET_FUNCTION} lines: {len(long_ones)}, "
          f"{len(over)} without a main/switch excuse ({verdict(not over)})")
    print(f"  files over {BUDGET_FILE} lines: {len(big_files)} ({verdict(not big_files)})")
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv))
    except Exception as e:  # a report tool: never fail the caller
        print(f"size_budget: internal error: {e}", file=sys.stderr)
        sys.exit(0)
