"""Rust's string functions where Python's differ, so that this plugin judges a label or an id
exactly as its Rust twin does."""

# `char::is_whitespace` (Unicode White_Space), what `str::trim` strips. Python's `str.strip()`
# also strips U+001C..U+001F, which Rust keeps.
_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def trim(s: str) -> str:
    """`str::trim`."""
    return s.strip(_WHITESPACE)


def to_ascii_lowercase(s: str) -> str:
    """`str::to_ascii_lowercase`: only A-Z change (`str.lower()` changes every letter)."""
    return s.encode("utf-8").lower().decode("utf-8")
