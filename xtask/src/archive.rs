//! The release archives, written so that the same files give the same bytes: entries in the
//! order given, every time stamp the commit's, owner and group 0 with no names, modes 0755 for
//! programs and 0644 for the rest. A `.tar.gz` for Linux (what `tar xzf` and every distribution
//! read) and a `.zip` for Windows (what Explorer and `Expand-Archive` open without a tool).

use std::io::{self, Write};

/// One file of an archive: its path inside (with `/`), its bytes, and whether it is a program.
pub struct Entry {
    pub path: String,
    pub bytes: Vec<u8>,
    pub executable: bool,
}

impl Entry {
    fn mode(&self) -> u32 {
        if self.executable { 0o755 } else { 0o644 }
    }
}

/// A gzip-compressed tar of `entries`, every time stamp `mtime` (seconds since the epoch).
pub fn tar_gz(entries: &[Entry], mtime: u64) -> io::Result<Vec<u8>> {
    // The gzip header's own time and name stay empty: the same tar gives the same bytes.
    let gz = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gz);
    for dir in directories(entries) {
        let mut header = header(mtime, 0o755, 0);
        header.set_entry_type(tar::EntryType::Directory);
        tar.append_data(&mut header, format!("{dir}/"), io::empty())?;
    }
    for e in entries {
        let mut header = header(mtime, e.mode(), e.bytes.len() as u64);
        tar.append_data(&mut header, &e.path, e.bytes.as_slice())?;
    }
    tar.into_inner()?.finish()
}

fn header(mtime: u64, mode: u32, size: u64) -> tar::Header {
    let mut h = tar::Header::new_gnu();
    h.set_mtime(mtime);
    h.set_mode(mode);
    h.set_uid(0);
    h.set_gid(0);
    h.set_size(size);
    h
}

/// The folders that hold `entries`, each once, parents first, in the order they first appear.
fn directories(entries: &[Entry]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for e in entries {
        let mut at = 0;
        while let Some(i) = e.path[at..].find('/') {
            let dir = &e.path[..at + i];
            if !out.iter().any(|d| d == dir) {
                out.push(dir.to_string());
            }
            at += i + 1;
        }
    }
    out
}

/// A deflated zip of `entries`, every time stamp `mtime` (seconds since the epoch, stored as the
/// MS-DOS local time zip has, read as UTC).
pub fn zip(entries: &[Entry], mtime: u64) -> io::Result<Vec<u8>> {
    let (y, mo, d, h, mi, s) = civil(mtime);
    // MS-DOS dates start in 1980: an older commit time is stored as 1980-01-01.
    let time = zip::DateTime::from_date_and_time(y.max(1980) as u16, mo, d, h, mi, s).unwrap_or_default();
    let mut out = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
    for e in entries {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .compression_level(Some(9))
            .last_modified_time(time)
            .unix_permissions(e.mode());
        out.start_file(e.path.as_str(), options).map_err(io::Error::other)?;
        out.write_all(&e.bytes)?;
    }
    Ok(out.finish().map_err(io::Error::other)?.into_inner())
}

/// Year, month, day, hour, minute, second (UTC) of `epoch_s`.
pub fn civil(epoch_s: u64) -> (i64, u8, u8, u8, u8, u8) {
    let date = spindle_core::date::Date::from_days_since_epoch((epoch_s / 86_400) as i64);
    let secs = epoch_s % 86_400;
    (
        i64::from(date.year),
        date.month,
        date.day,
        (secs / 3600) as u8,
        (secs / 60 % 60) as u8,
        (secs % 60) as u8,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn entries() -> Vec<Entry> {
        vec![
            Entry {
                path: "spindle-0.1.0/spindle".into(),
                bytes: b"\x7fELF program".to_vec(),
                executable: true,
            },
            Entry {
                path: "spindle-0.1.0/packs/oltp.toml".into(),
                bytes: b"name = \"oltp\"\n".to_vec(),
                executable: false,
            },
        ]
    }

    #[test]
    fn the_same_files_give_the_same_archive() {
        let t = 1_764_892_800; // 2025-12-05T00:00:00Z
        assert_eq!(tar_gz(&entries(), t).unwrap(), tar_gz(&entries(), t).unwrap());
        assert_eq!(zip(&entries(), t).unwrap(), zip(&entries(), t).unwrap());
        assert_ne!(tar_gz(&entries(), t).unwrap(), tar_gz(&entries(), t + 1).unwrap(), "the time is in it");
        assert_ne!(zip(&entries(), t).unwrap(), zip(&entries(), t + 2).unwrap(), "the time is in it");
    }

    #[test]
    fn a_tar_holds_folders_files_modes_and_the_commit_time() {
        let t = 1_764_892_800;
        let bytes = tar_gz(&entries(), t).unwrap();
        let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes.as_slice()));
        let mut seen = vec![];
        for e in archive.entries().unwrap() {
            let mut e = e.unwrap();
            let h = e.header().clone();
            let mut body = vec![];
            e.read_to_end(&mut body).unwrap();
            seen.push((
                e.path().unwrap().display().to_string(),
                h.mode().unwrap(),
                h.mtime().unwrap(),
                h.uid().unwrap(),
                body,
            ));
        }
        let names: Vec<_> = seen.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "spindle-0.1.0/",
                "spindle-0.1.0/packs/",
                "spindle-0.1.0/spindle",
                "spindle-0.1.0/packs/oltp.toml"
            ]
        );
        assert!(seen.iter().all(|s| s.2 == t && s.3 == 0));
        assert_eq!((seen[2].1, seen[3].1), (0o755, 0o644));
        assert_eq!(seen[2].4, b"\x7fELF program");
    }

    #[test]
    fn a_zip_holds_files_modes_and_the_commit_time() {
        let bytes = zip(&entries(), 1_764_892_800).unwrap();
        let mut archive = zip::ZipArchive::new(io::Cursor::new(bytes)).unwrap();
        let mut program = archive.by_name("spindle-0.1.0/spindle").unwrap();
        assert_eq!(program.unix_mode(), Some(0o100755));
        let m = program.last_modified().unwrap();
        assert_eq!((m.year(), m.month(), m.day(), m.hour()), (2025, 12, 5, 0));
        let mut body = vec![];
        program.read_to_end(&mut body).unwrap();
        assert_eq!(body, b"\x7fELF program");
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(civil(951_782_400), (2000, 2, 29, 0, 0, 0));
        assert_eq!(civil(1_764_937_425), (2025, 12, 5, 12, 23, 45));
    }
}
