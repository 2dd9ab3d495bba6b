#!/usr/bin/env python3
"""Fails when code under include/ writes to stdout/stderr itself instead of through rmq's log handler.

Every line rmq prints goes through rmq::log_message (include/rmq/log.hpp), so that an application can route
it; the default handler in include/rmq/impl/log.ipp is the one place allowed to write to stderr.

    tools/check-output.py [ROOT]      exit status 1 and the offending lines when any is found
"""
import pathlib
import re
import sys

ALLOWED = {pathlib.PurePosixPath("include/rmq/impl/log.ipp")}
WRITE = re.compile(
    r"\b(stderr|stdout|std::cerr|std::cout|std::clog|printf|fprintf|puts|fputs|perror|putchar|"
    r"fmt::print|fmt::println|std::print|std::println|write\s*\(\s*[12]\s*,)\b")


def code_of(line: str) -> str:
    """The line without a // comment (rmq's headers use no /* */ comments in code lines)."""
    return line.split("//", 1)[0]


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = []
    for path in sorted((root / "include").rglob("*")):
        rel = pathlib.PurePosixPath(path.relative_to(root).as_posix())
        if path.suffix not in (".hpp", ".ipp") or rel in ALLOWED:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if WRITE.search(code_of(line)):
                found.append(f"{rel}:{number}: {line.strip()}")
    if found:
        print("direct writes to stdout/stderr (log through rmq::detail::log_line or rmq::log_message):")
        print("\n".join(found))
        return 1
    print("no direct writes to stdout/stderr under include/ (outside the default log handler)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
