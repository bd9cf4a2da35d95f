"""The pack's config table (`[plugins.acme_py] config = {...}`), read and checked the way the Rust
acme pack's `AcmeConfig` reads it (serde, `deny_unknown_fields`), so that one table means the
same to both plugins and is refused by both with the same words."""

import json

import rust_text

# The keys of the Rust pack's table. This pack runs ACM002 only, so it reads `log_label_word`;
# the others are checked for their type, as the Rust pack does, and not used.
_STRING_KEYS = ("log_label_word",)
_LIST_KEYS = ("data_mounts_windows", "data_mounts_linux", "production_hosts")
_FIELDS = ("data_mounts_windows", "data_mounts_linux", "log_label_word", "production_hosts")

DEFAULT_LOG_LABEL_WORD = "LOG"

# How deep arrays and tables may nest: serde_json's limit (it refuses the 128th level). Python's
# parser recurses once per level, and in the component a few thousand levels exhaust the wasm
# stack: a trap, where the Rust pack gives a `bad-config`.
MAX_DEPTH = 127


class ConfigError(Exception):
    """The table is not what the pack expects; the message says why."""


def _unexpected(value) -> str:
    """A JSON value as serde_json names it in "invalid type" errors."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value!r}`"
    if isinstance(value, str):
        return "string " + json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "sequence"
    return "map"


def _want_string(value):
    if not isinstance(value, str):
        raise ConfigError(f"invalid type: {_unexpected(value)}, expected a string")
    return value


def _compact(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _check_depth(text: str) -> None:
    """Raises `ValueError` at the first array or table nested deeper than `MAX_DEPTH`."""
    depth, in_string, escaped, line, column = 0, False, False, 1, 0
    for c in text:
        column += 1
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError(f"recursion limit exceeded at line {line} column {column}")
        elif c in "]}":
            depth -= 1
        elif c == "\n":
            line, column = line + 1, 0


class PackConfig:
    def __init__(self, log_label_word: str = DEFAULT_LOG_LABEL_WORD):
        self.log_label_word = log_label_word

    @staticmethod
    def from_json(text: str) -> "PackConfig":
        """Reads a `config-json`: empty or `null` gives the defaults, anything but a table is
        refused. Raises `ConfigError`, or `ValueError` when the text is not JSON."""
        _check_depth(text)
        value = json.loads(text) if text.strip() else None
        return PackConfig.from_value(value)

    @staticmethod
    def from_value(value) -> "PackConfig":
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise ConfigError(f"expected a table, found {_compact(value)}")
        cfg = PackConfig()
        # serde_json's maps are sorted by key: the first bad key in that order is the one named.
        for key in sorted(value):
            v = value[key]
            if key in _STRING_KEYS:
                cfg.log_label_word = _want_string(v)
            elif key in _LIST_KEYS:
                if not isinstance(v, list):
                    raise ConfigError(f"invalid type: {_unexpected(v)}, expected a sequence")
                for item in v:
                    _want_string(item)
            else:
                expected = ", ".join(f"`{f}`" for f in _FIELDS)
                raise ConfigError(f"unknown field `{key}`, expected one of {expected}")
        if not rust_text.trim(cfg.log_label_word):
            raise ConfigError("log_label_word is empty: every label contains it")
        return cfg
