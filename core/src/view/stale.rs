//! Two snapshot files of one host from the same collector are two readings of the same facts at
//! different times: the older one is stale wherever the newer one speaks. Left to the field-wise
//! merge, whichever file came first would win in silence (yesterday's aligned partitions hiding
//! today's sector 63, a dropped database still judged); here the newer file's sections replace
//! the older's, and the run says so.

use super::Document;
use crate::facts::Snapshot;

/// A section of a snapshot that both of two files of one host carried, and which one was used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleFacts {
    /// The file whose sections were set aside, as given.
    pub older: String,
    pub older_collected_at: Option<String>,
    /// The file used for them.
    pub newer: String,
    pub newer_collected_at: Option<String>,
    /// The collectors both files name (empty when neither names one).
    pub collectors: Vec<String>,
    /// The sections both files carry.
    pub sections: Vec<&'static str>,
}

impl StaleFacts {
    /// One line for a person: both files, when each was collected, and which was used.
    pub fn message(&self, host: &str) -> String {
        let when = |at: &Option<String>| match at {
            Some(at) => format!("collected_at {at}"),
            None => "no collected_at".to_string(),
        };
        let from = if self.collectors.is_empty() {
            "no collector named".to_string()
        } else {
            format!("collector {}", self.collectors.join(", "))
        };
        format!(
            "{host}: {} ({}) and {} ({}) both describe {} ({from}): the newer, {}, is used for them",
            self.older,
            when(&self.older_collected_at),
            self.newer,
            when(&self.newer_collected_at),
            self.sections.join(", "),
            self.newer,
        )
    }
}

/// The list sections of a snapshot, by name, and whether `s` carries each.
fn sections(s: &Snapshot) -> [(&'static str, bool); 7] {
    [
        ("disks", s.disks.is_some()),
        ("partitions", s.partitions.is_some()),
        ("volumes", s.volumes.is_some()),
        ("storage_pools", s.storage_pools.is_some()),
        ("virtual_disks", s.virtual_disks.is_some()),
        ("raid_sets", s.raid_sets.is_some()),
        ("sql_instances", s.sql_instances.is_some()),
    ]
}

/// Sets the older file's copy of `section` aside. Volumes stay, to be merged field by field
/// under the newer file's values: a combined host-and-SQL snapshot and a later SQL-only one
/// share the `sql` collector, yet the SQL-only file's volumes lack the host collector's facts
/// (allocation unit, stripe), which dropping the older volumes would lose.
fn set_aside(s: &mut Snapshot, section: &str) {
    match section {
        "disks" => s.disks = None,
        "partitions" => s.partitions = None,
        "storage_pools" => s.storage_pools = None,
        "virtual_disks" => s.virtual_disks = None,
        "raid_sets" => s.raid_sets = None,
        "sql_instances" => s.sql_instances = None,
        _ => {}
    }
}

/// Resolves stale facts among one host's files: where two files from the same collector (or
/// two that name none) carry the same section, the newer file's copy is used. Files are
/// reordered newest first when any two conflict, so the field-wise merge that follows keeps the
/// newer value of every fact both have (the host's, a volume's); files from different
/// collectors (host and SQL Server) do not conflict and keep their order. Newer is the later
/// `collected_at`; a file without a readable one counts as older, and of two equally dated
/// files the one given later is newer (in a folder, name order: a date in the name sorts last).
pub fn resolve(docs: &mut Vec<Document>) -> Vec<StaleFacts> {
    let mut out = vec![];
    if docs.len() < 2 {
        return out;
    }
    let times: Vec<Option<i64>> =
        docs.iter().map(|d| d.snapshot.collected_at.as_deref().and_then(instant)).collect();
    // The given order breaks ties: later is newer.
    let newer = |a: usize, b: usize| (times[a], a) > (times[b], b);
    let mut dropped: Vec<Vec<&'static str>> = vec![vec![]; docs.len()];
    for i in 0..docs.len() {
        for j in i + 1..docs.len() {
            let (a, b) = (&docs[i].snapshot, &docs[j].snapshot);
            let names = |s: &Snapshot| s.collectors.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
            let (na, nb) = (names(a), names(b));
            let shared: Vec<String> = na.iter().filter(|n| nb.contains(n)).cloned().collect();
            if shared.is_empty() && !(na.is_empty() && nb.is_empty()) {
                continue;
            }
            let both: Vec<&'static str> =
                sections(a).iter().zip(sections(b)).filter(|(x, y)| x.1 && y.1).map(|(x, _)| x.0).collect();
            if both.is_empty() {
                continue;
            }
            let (old, new) = if newer(j, i) { (i, j) } else { (j, i) };
            dropped[old].extend(both.iter().copied());
            out.push(StaleFacts {
                older: docs[old].path.clone(),
                older_collected_at: docs[old].snapshot.collected_at.clone(),
                newer: docs[new].path.clone(),
                newer_collected_at: docs[new].snapshot.collected_at.clone(),
                collectors: shared,
                sections: both,
            });
        }
    }
    if out.is_empty() {
        return out;
    }
    for (doc, sections) in docs.iter_mut().zip(&dropped) {
        for s in sections {
            set_aside(&mut doc.snapshot, s);
        }
    }
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by(|&a, &b| (times[b], b).cmp(&(times[a], a)));
    let mut slots: Vec<Option<Document>> = std::mem::take(docs).into_iter().map(Some).collect();
    docs.extend(order.into_iter().filter_map(|i| slots[i].take()));
    out
}

/// Seconds since 1970-01-01 UTC of an RFC 3339 date-time (`2026-12-04T07:30:04+01:00`,
/// `...Z`, fractions of a second ignored); `None` when it is not one.
fn instant(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let date = crate::date::Date::parse(s.get(..10)?)?;
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes().all(|c| c.is_ascii_digit()).then(|| t.parse().ok())?
    };
    let (h, m, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if h > 23 || m > 59 || sec > 60 {
        return None;
    }
    let mut rest = s.get(19..)?;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && rest.as_bytes()[3] == b':' => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (oh, om) = (rest.get(1..3)?.parse::<i64>().ok()?, rest.get(4..6)?.parse::<i64>().ok()?);
            if oh > 23 || om > 59 {
                return None;
            }
            sign * (oh * 3600 + om * 60)
        }
        _ => return None,
    };
    Some(date.days_since_epoch() * 86_400 + h * 3600 + m * 60 + sec - offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::{CollectorReport, Partition};

    fn doc(path: &str, at: Option<&str>, collectors: &[&str], offset_bytes: u64) -> Document {
        let snapshot = Snapshot {
            schema_version: 1,
            collected_at: at.map(str::to_string),
            collectors: collectors
                .iter()
                .map(|n| CollectorReport { name: n.to_string(), ..Default::default() })
                .collect(),
            partitions: Some(vec![Partition {
                id: "p1".into(),
                disk_id: "d0".into(),
                offset_bytes: Some(offset_bytes),
                ..Default::default()
            }]),
            ..Default::default()
        };
        Document { path: path.into(), text: String::new(), snapshot }
    }

    fn offsets(docs: &[Document]) -> Vec<Option<u64>> {
        docs.iter().map(|d| d.snapshot.partitions.as_ref().map(|p| p[0].offset_bytes.unwrap())).collect()
    }

    #[test]
    fn instants_compare_across_offsets_and_fractions() {
        assert_eq!(instant("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(instant("1970-01-01T01:00:00+01:00"), Some(0));
        assert_eq!(instant("2026-12-04T07:30:04.250-02:30"), instant("2026-12-04T10:00:04Z"));
        for bad in [
            "2026-12-04",
            "2026-12-04T07:30",
            "2026-13-04T07:30:04Z",
            "2026-12-04T07:30:04+0100",
            "yesterday",
            "2026-12-04T07:30:0€Z",
            "2026-12-04T07:30:04+€:0",
        ] {
            assert_eq!(instant(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_newer_of_two_files_of_one_collector_supersedes_the_older_whatever_their_order() {
        for (first, second) in [
            (("a", "2026-12-03T08:00:00Z", 1), ("b", "2026-12-04T08:00:00Z", 2)),
            (("a", "2026-12-04T08:00:00Z", 1), ("b", "2026-12-03T08:00:00Z", 2)),
        ] {
            let mut docs = vec![
                doc(first.0, Some(first.1), &["wmi", "sql"], first.2),
                doc(second.0, Some(second.1), &["wmi"], second.2),
            ];
            let stale = resolve(&mut docs);
            let newest = if first.1 > second.1 { first } else { second };
            assert_eq!(stale.len(), 1);
            assert_eq!(stale[0].newer, newest.0);
            assert_eq!(stale[0].sections, ["partitions"]);
            assert_eq!(stale[0].collectors, ["wmi"]);
            assert_eq!(docs[0].path, newest.0, "newest first, so its values win the field-wise merge");
            assert_eq!(offsets(&docs), [Some(newest.2), None], "the older file's partitions are set aside");
        }
    }

    #[test]
    fn an_undated_file_is_older_and_equal_dates_go_to_the_file_given_later() {
        let mut docs = vec![doc("dated", Some("2020-01-01T00:00:00Z"), &[], 1), doc("undated", None, &[], 2)];
        assert_eq!(resolve(&mut docs)[0].newer, "dated");
        let at = Some("2020-01-01T00:00:00Z");
        let mut docs = vec![doc("first", at, &["linux"], 1), doc("second", at, &["linux"], 2)];
        assert_eq!(resolve(&mut docs)[0].newer, "second");
    }

    #[test]
    fn files_of_different_collectors_complement_each_other_untouched() {
        let mut docs = vec![
            doc("host", Some("2026-12-03T08:00:00Z"), &["linux"], 1),
            doc("sql", Some("2026-12-04T08:00:00Z"), &["sql"], 2),
        ];
        assert!(resolve(&mut docs).is_empty());
        assert_eq!(offsets(&docs), [Some(1), Some(2)]);
        assert_eq!(docs[0].path, "host", "order kept");
    }
}
