//! Positioned, exact reads from an image file, a block device or bytes in memory, plus the
//! bounds-checked field readers every parser uses.
//!
//! Parsers never index a slice directly: each field goes through [`Fields`], which turns an
//! out-of-range field into [`ImageError::Truncated`] naming the field and its absolute offset.

use std::fs::File;
use std::io;

use super::ImageError;

/// Exact reads at an offset, and the total size. Implemented for byte slices, `Vec<u8>` and
/// [`std::fs::File`] (regular files and block devices alike).
pub trait ReadAt {
    /// Fills `buf` from `offset`, or fails (`UnexpectedEof` when the data ends first).
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;
    /// Total size in bytes. A source whose size cannot be found reports 0, which the collector
    /// then refuses as too short rather than guessing.
    fn size_bytes(&self) -> u64;
}

impl ReadAt for [u8] {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(|_| eof())?;
        let end = start.checked_add(buf.len()).ok_or_else(eof)?;
        let src = self.get(start..end).ok_or_else(eof)?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn size_bytes(&self) -> u64 {
        self.len() as u64
    }
}

impl ReadAt for Vec<u8> {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.as_slice().read_at(offset, buf)
    }
    fn size_bytes(&self) -> u64 {
        self.len() as u64
    }
}

impl ReadAt for File {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::read_exact_at(self, buf, offset)
        }
        #[cfg(windows)]
        {
            let mut done = 0usize;
            while done < buf.len() {
                let at = offset.checked_add(done as u64).ok_or_else(eof)?;
                match std::os::windows::fs::FileExt::seek_read(self, &mut buf[done..], at) {
                    Ok(0) => return Err(eof()),
                    Ok(n) => done += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        }
        #[cfg(not(any(unix, windows)))]
        {
            let _ = (offset, buf);
            Err(io::Error::new(io::ErrorKind::Unsupported, "positioned reads are not supported here"))
        }
    }

    /// A regular file's length; for a block device (whose metadata length is 0) the position of
    /// its end, found by seeking there.
    fn size_bytes(&self) -> u64 {
        use std::io::{Seek, SeekFrom};
        match self.metadata() {
            Ok(m) if m.is_file() => m.len(),
            _ => {
                let mut f = self;
                f.seek(SeekFrom::End(0)).unwrap_or(0)
            }
        }
    }
}

impl<T: ReadAt + ?Sized> ReadAt for &T {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        (**self).read_at(offset, buf)
    }
    fn size_bytes(&self) -> u64 {
        (**self).size_bytes()
    }
}

fn eof() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "read past the end of the data")
}

/// A byte range of another source seen as a source of its own: a partition, or the data area of
/// a fixed VHD. Reads past its end fail even when the underlying source has more.
pub struct Window<'a> {
    inner: &'a dyn ReadAt,
    start: u64,
    len: u64,
}

impl<'a> Window<'a> {
    pub fn new(inner: &'a dyn ReadAt, start: u64, len: u64) -> Self {
        Window { inner, start, len }
    }
    /// Where the window starts in the underlying source (used for absolute error offsets).
    pub fn start(&self) -> u64 {
        self.start
    }
}

impl ReadAt for Window<'_> {
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let end = offset.checked_add(buf.len() as u64).ok_or_else(eof)?;
        if end > self.len {
            return Err(eof());
        }
        self.inner.read_at(self.start.checked_add(offset).ok_or_else(eof)?, buf)
    }
    fn size_bytes(&self) -> u64 {
        self.len
    }
}

/// Reads `len` bytes at `offset` of `src`, after checking they lie inside it and that `len` is at
/// most `limit` (so a crafted count can never make the collector allocate much). `base` is the
/// absolute offset of `src` in the image, for error messages.
pub(crate) fn read_bytes(
    src: &dyn ReadAt,
    base: u64,
    offset: u64,
    len: u64,
    limit: u64,
    what: &'static str,
) -> Result<Vec<u8>, ImageError> {
    let abs = base.saturating_add(offset);
    if len > limit {
        return Err(ImageError::TooLarge { what, offset: abs, len, limit });
    }
    let size = src.size_bytes();
    match offset.checked_add(len) {
        Some(end) if end <= size => {}
        _ => return Err(ImageError::Truncated { what, offset: abs, len, end: base.saturating_add(size) }),
    }
    // `len <= limit`, and every limit in this module is a few MiB at most.
    let mut buf = vec![0u8; len as usize];
    src.read_at(offset, &mut buf).map_err(|source| ImageError::Io { what, offset: abs, source })?;
    Ok(buf)
}

/// Bounds-checked little- and big-endian field reads over one on-disk structure held in memory.
/// `base` is the structure's absolute offset in the image, so errors name the field's real
/// position.
#[derive(Clone, Copy)]
pub struct Fields<'a> {
    pub bytes: &'a [u8],
    pub base: u64,
}

impl<'a> Fields<'a> {
    pub fn new(bytes: &'a [u8], base: u64) -> Self {
        Fields { bytes, base }
    }

    /// The absolute offset of byte `at` of the structure.
    pub fn abs(&self, at: usize) -> u64 {
        self.base.saturating_add(at as u64)
    }

    pub fn get(&self, at: usize, len: usize, what: &'static str) -> Result<&'a [u8], ImageError> {
        at.checked_add(len).and_then(|end| self.bytes.get(at..end)).ok_or(ImageError::Truncated {
            what,
            offset: self.abs(at),
            len: len as u64,
            end: self.abs(self.bytes.len()),
        })
    }

    fn array<const N: usize>(&self, at: usize, what: &'static str) -> Result<[u8; N], ImageError> {
        let s = self.get(at, N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&self, at: usize, what: &'static str) -> Result<u8, ImageError> {
        Ok(self.array::<1>(at, what)?[0])
    }
    pub fn le_u16(&self, at: usize, what: &'static str) -> Result<u16, ImageError> {
        self.array(at, what).map(u16::from_le_bytes)
    }
    pub fn le_u32(&self, at: usize, what: &'static str) -> Result<u32, ImageError> {
        self.array(at, what).map(u32::from_le_bytes)
    }
    pub fn le_u64(&self, at: usize, what: &'static str) -> Result<u64, ImageError> {
        self.array(at, what).map(u64::from_le_bytes)
    }
    pub fn be_u16(&self, at: usize, what: &'static str) -> Result<u16, ImageError> {
        self.array(at, what).map(u16::from_be_bytes)
    }
    pub fn be_u32(&self, at: usize, what: &'static str) -> Result<u32, ImageError> {
        self.array(at, what).map(u32::from_be_bytes)
    }
    pub fn be_u64(&self, at: usize, what: &'static str) -> Result<u64, ImageError> {
        self.array(at, what).map(u64::from_be_bytes)
    }
    /// Whether the bytes at `at` equal `magic` (false when they lie past the end).
    pub fn has(&self, at: usize, magic: &[u8]) -> bool {
        at.checked_add(magic.len()).and_then(|end| self.bytes.get(at..end)) == Some(magic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_reads_are_exact_and_bounded() {
        let data: Vec<u8> = (0..16).collect();
        let mut b = [0u8; 4];
        data.read_at(12, &mut b).unwrap();
        assert_eq!(b, [12, 13, 14, 15]);
        assert!(data.read_at(13, &mut b).is_err());
        assert!(data.read_at(u64::MAX, &mut b).is_err());
        let w = Window::new(&data, 4, 8);
        assert_eq!(w.size_bytes(), 8);
        w.read_at(4, &mut b).unwrap();
        assert_eq!(b, [8, 9, 10, 11]);
        assert!(w.read_at(5, &mut b).is_err());
        assert!(w.read_at(u64::MAX - 1, &mut b).is_err());
    }

    #[test]
    fn read_bytes_refuses_large_and_truncated() {
        let data = vec![0u8; 100];
        assert!(matches!(read_bytes(&data, 0, 0, 200, 100, "x"), Err(ImageError::TooLarge { .. })));
        assert!(matches!(
            read_bytes(&data, 1000, 90, 20, 100, "x"),
            Err(ImageError::Truncated { offset: 1090, end: 1100, .. })
        ));
        assert!(matches!(read_bytes(&data, 0, u64::MAX, 20, 100, "x"), Err(ImageError::Truncated { .. })));
        assert_eq!(read_bytes(&data, 0, 90, 10, 100, "x").unwrap().len(), 10);
    }

    #[test]
    fn fields_name_the_absolute_offset() {
        let f = Fields::new(&[1, 2, 3], 500);
        assert_eq!(f.le_u16(0, "a").unwrap(), 0x0201);
        assert_eq!(f.be_u16(1, "a").unwrap(), 0x0203);
        match f.le_u32(1, "field") {
            Err(ImageError::Truncated { what: "field", offset: 501, len: 4, end: 503 }) => {}
            other => panic!("{other:?}"),
        }
        assert!(f.u8(usize::MAX, "x").is_err());
        assert!(!f.has(usize::MAX, b"ab"));
    }
}
