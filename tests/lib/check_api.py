#!/usr/bin/env python3
"""libcompsc's API, ABI and manual agree: compsc.h, libcompsc.map, libcompsc.so, man/.

Fails (exit 1, one line per disagreement) when
  - a function compsc.h declares out of line is not in the version script,
    or the script names a symbol compsc.h does not declare;
  - the built library exports (nm -D --defined-only) anything but the
    script's symbols, or one of them without the script's version node;
  - a public function (every exported symbol, and every inline one
    compsc.h defines except its __ helpers) has no man3 page, a page names
    no function, a .so link points nowhere, a page does not name in NAME
    every function linked to it, or libcompsc(7) leaves one out;
  - compsc_errno(3) does not name one of compsc.h's COMPSC_E* codes;
  - groff warns about a page (when groff is installed).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def header_functions(path):
    """(out-of-line, inline) function names declared at top level in @path."""
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"^#.*(\\\n.*)*", "", text, flags=re.M)
    extern, inline = set(), set()
    # a declaration starts in column 0 (bodies, members, enumerators are indented)
    for m in re.finditer(r"^(static[ \t]+inline[ \t]+)?[A-Za-z_][\w \t*]*?\b(\w+)[ \t]*\(",
                         text, flags=re.M):
        (inline if m.group(1) else extern).add(m.group(2))
    return extern, inline - extern


def map_symbols(path):
    """{symbol: version node} of the global symbols of a version script."""
    text = re.sub(r"/\*.*?\*/", "", open(path).read(), flags=re.S)
    syms = {}
    for node, body in re.findall(r"([\w.]+)\s*\{(.*?)\}\s*[\w.]*\s*;", text, flags=re.S):
        glob = re.search(r"global:(.*?)(local:|$)", body, flags=re.S)
        for sym in re.findall(r"([\w.]+)\s*;", glob.group(1) if glob else ""):
            syms[sym] = node
    return syms


def exported(lib):
    """{symbol: version} the shared library defines in its dynamic table."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        name, _, ver = parts[2].partition("@")
        if parts[1] == "A" and not ver:
            continue            # a version node, not a symbol
        syms[name] = ver.lstrip("@")
    return syms


def man_pages(mandir):
    """{function: (page file, .so target or None, NAME names)} for man3."""
    pages = {}
    for f in sorted(os.listdir(mandir)):
        if not f.endswith(".3"):
            continue
        text = open(os.path.join(mandir, f)).read()
        so = re.match(r"\.so\s+(\S+)\s*$", text)
        names = set()
        m = re.search(r"^\.SH NAME\n(.*?)\\-", text, flags=re.M | re.S)
        if m:
            names = set(re.findall(r"[\w]+", m.group(1).replace("\\", "")))
        pages[f[:-2]] = (f, so.group(1) if so else None, names)
    return pages


def check(args):
    errs = []
    extern, inline = header_functions(args.header)
    mapped = map_symbols(args.map)
    for f in sorted(extern - set(mapped)):
        errs.append(f"{f}: declared in compsc.h, not in {args.map}")
    for f in sorted(set(mapped) - extern):
        errs.append(f"{f}: in {args.map}, not declared in compsc.h")

    have = exported(args.lib)
    for f in sorted(set(have) - set(mapped)):
        errs.append(f"{f}: exported by {args.lib}, not in {args.map}")
    for f, node in sorted(mapped.items()):
        if f not in have:
            errs.append(f"{f}: in {args.map}, not exported by {args.lib}")
        elif have[f] != node:
            errs.append(f"{f}: exported as version {have[f] or 'none'}, not {node}")

    public = set(mapped) | {f for f in inline if not f.startswith("__")}
    pages = man_pages(args.man)
    for f in sorted(public - set(pages)):
        errs.append(f"{f}: public, no man page {args.man}/{f}.3")
    for f in sorted(set(pages) - public):
        errs.append(f"{args.man}/{f}.3: no such public function")
    for f, (page, so, names) in sorted(pages.items()):
        target = os.path.basename(so) if so else page
        if target[:-2] not in pages or pages[target[:-2]][1]:
            errs.append(f"{page}: .so link to {so}, which is no page")
            continue
        if f not in pages[target[:-2]][2]:
            errs.append(f"{target}: NAME does not name {f}")

    codes = set(re.findall(r"^\s+(COMPSC_E\w+)", open(args.header).read(), flags=re.M))
    errno_page = os.path.join(args.man, "compsc_errno.3")
    text = open(errno_page).read() if os.path.exists(errno_page) else ""
    for c in sorted(codes - {"COMPSC_E_MAX"} - set(re.findall(r"COMPSC_E\w+", text))):
        errs.append(f"compsc_errno.3: does not map {c}")

    overview = os.path.join(args.man, "libcompsc.7")
    text = open(overview).read() if os.path.exists(overview) else ""
    listed = set(re.findall(r"^\.BR\s+(\w+)\s+\(3\)", text, flags=re.M))
    for f in sorted(public - listed):
        errs.append(f"libcompsc.7: does not list {f}(3)")

    if shutil.which("groff"):
        for f in sorted(os.listdir(args.man)):
            p = os.path.join(args.man, f)
            if os.path.isfile(p) and not re.match(r"\.so\s", open(p).read()):
                r = subprocess.run(["groff", "-man", "-ww", "-z", "-Tutf8", p],
                                   capture_output=True, text=True)
                for line in (r.stderr or "").splitlines():
                    errs.append(f"{f}: groff: {line}")

    for e in errs:
        print(f"check_api: {e}", file=sys.stderr)
    print(f"check_api: {len(mapped)} exported, {len(public)} public functions, "
          f"{len(pages)} man3 pages: {'FAIL' if errs else 'ok'}")
    return 1 if errs else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--header", required=True)
    ap.add_argument("--map", required=True)
    ap.add_argument("--man", required=True)
    ap.add_argument("--lib", required=True)
    sys.exit(check(ap.parse_args()))


if __name__ == "__main__":
    main()
