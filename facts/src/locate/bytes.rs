//! Finding the next byte of interest eight bytes at a time: strings and skipped containers are
//! most of a snapshot's text.

const ONES: u64 = 0x0101_0101_0101_0101;

/// The top bit of each byte of `x` that is zero, and maybe of bytes above a zero byte (a borrow
/// runs up): the lowest bit set is always a true zero byte.
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & 0x8080_8080_8080_8080
}

/// The index of the first byte of `b` that `is` accepts, eight bytes at a time: `hits` marks
/// the top bit of such bytes in a little-endian word (its lowest mark must be exact).
fn first_byte(b: &[u8], hits: impl Fn(u64) -> u64, is: impl Fn(u8) -> bool) -> Option<usize> {
    let mut words = b.chunks_exact(8);
    let mut n = 0;
    for word in &mut words {
        let hit = hits(u64::from_le_bytes(word.try_into().expect("eight bytes")));
        if hit != 0 {
            return Some(n + (hit.trailing_zeros() / 8) as usize);
        }
        n += 8;
    }
    words.remainder().iter().position(|&c| is(c)).map(|i| n + i)
}

/// The index of the first `"`, `\\` or control character in `b` (`b.len()` when there is none):
/// strings are most of a snapshot's text, and most of them are short.
pub fn first_special(b: &[u8]) -> usize {
    let hits = |x: u64| {
        // A control character has its top three bits clear.
        zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(x ^ (ONES * u64::from(b'\\')))
            | zero_bytes(x & 0xe0e0_e0e0_e0e0_e0e0)
    };
    first_byte(b, hits, |c| c == b'"' || c == b'\\' || c < 0x20).unwrap_or(b.len())
}

/// The index of the first `"`, `{`, `}`, `[` or `]` in `b` (what lies between them, when
/// skipping a container of parsed text, is mostly plain bytes).
pub(super) fn first_structural(b: &[u8]) -> Option<usize> {
    let hits = |x: u64| {
        // `[` `]` are `{` `}` without the 0x20 bit: set it, and two tests find all four.
        let folded = x | (ONES * 0x20);
        zero_bytes(x ^ (ONES * u64::from(b'"')))
            | zero_bytes(folded ^ (ONES * u64::from(b'{')))
            | zero_bytes(folded ^ (ONES * u64::from(b'}')))
    };
    first_byte(b, hits, |c| matches!(c, b'"' | b'{' | b'}' | b'[' | b']'))
}
