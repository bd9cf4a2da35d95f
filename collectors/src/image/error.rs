//! The one error type of the image collector: every variant names the structure and the byte
//! offset (from the start of the image file or device) where reading it went wrong, so a crafted
//! or truncated image is reported precisely instead of panicking or being half-read.

use std::io;

/// Why an image could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The operating system failed the read (permissions, a dying disk, ...).
    #[error("reading {what} at byte {offset}: {source}")]
    Io {
        what: &'static str,
        offset: u64,
        #[source]
        source: io::Error,
    },
    /// A structure, or a field of one, lies past the end of the data.
    #[error("{what} at byte {offset} needs {len} bytes but the data ends at byte {end}")]
    Truncated { what: &'static str, offset: u64, len: u64, end: u64 },
    /// A field holds a value the format does not allow.
    #[error("{what} at byte {offset}: {problem}")]
    Invalid { what: &'static str, offset: u64, problem: String },
    /// A checksum stored on disk does not match the bytes it covers.
    #[error("{what} at byte {offset}: stored checksum {stored:#010x}, computed {computed:#010x}")]
    BadChecksum { what: &'static str, offset: u64, stored: u32, computed: u32 },
    /// A structure larger than this collector will read (it bounds every allocation).
    #[error("{what} at byte {offset} would be {len} bytes, more than the {limit} bytes read at most")]
    TooLarge { what: &'static str, offset: u64, len: u64, limit: u64 },
    /// A container format whose data area is not the disk byte for byte.
    #[error(
        "{format} images are not supported: convert the image to raw first \
         (`qemu-img convert -O raw <image> <image>.raw`)"
    )]
    Unsupported { format: &'static str },
}

impl ImageError {
    pub(crate) fn invalid(what: &'static str, offset: u64, problem: impl Into<String>) -> Self {
        ImageError::Invalid { what, offset, problem: problem.into() }
    }
}
