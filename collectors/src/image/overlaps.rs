//! Partitions that share bytes: what a damaged or crafted table holds, named in a short note.

use super::tables::Part;

/// Most sets of overlapping partitions an overlap note names, and most partitions it names in
/// each: a crafted table of 8,192 entries over the same sectors gets a note of a few lines.
const OVERLAPS_NAMED: usize = 4;
const PARTITIONS_NAMED: usize = 4;

/// Which partitions share bytes with another, in sets of partitions whose byte ranges chain
/// together, or `None` when none do. A real table never overlaps: at most one partition of a
/// set can be what the disk holds, so the facts of all of them are in doubt. One sort and one
/// sweep, so a table of thousands of entries costs no more than reading it.
pub(super) fn overlaps(disk_id: &str, parts: &[Part]) -> Option<String> {
    let mut order: Vec<&Part> = parts.iter().filter(|p| p.size > 0).collect();
    order.sort_by_key(|p| (p.offset, p.number));
    let mut sets: Vec<(Vec<u32>, u64, u64)> = Vec::new(); // members, first byte, end
    let mut current: Option<(Vec<u32>, u64, u64)> = None;
    for p in order {
        let end = p.offset.saturating_add(p.size);
        match &mut current {
            Some((members, _, set_end)) if p.offset < *set_end => {
                members.push(p.number);
                *set_end = (*set_end).max(end);
            }
            _ => {
                if let Some(done) = current.take().filter(|s| s.0.len() > 1) {
                    sets.push(done);
                }
                current = Some((vec![p.number], p.offset, end));
            }
        }
    }
    if let Some(done) = current.filter(|s| s.0.len() > 1) {
        sets.push(done);
    }
    if sets.is_empty() {
        return None;
    }
    let total: usize = sets.iter().map(|s| s.0.len()).sum();
    let mut described: Vec<String> = sets
        .iter()
        .take(OVERLAPS_NAMED)
        .map(|(members, start, end)| {
            let mut numbers = members.clone();
            numbers.sort_unstable();
            let mut names: Vec<String> =
                numbers.iter().take(PARTITIONS_NAMED).map(|n| format!("{disk_id}-p{n}")).collect();
            let more = numbers.len().saturating_sub(PARTITIONS_NAMED);
            if more > 0 {
                names.push(format!("{more} more"));
            }
            let last = names.pop().unwrap_or_default();
            format!("{} and {last} over bytes {start}..{end}", names.join(", "))
        })
        .collect();
    if sets.len() > OVERLAPS_NAMED {
        described.push(format!("and {} more sets", sets.len() - OVERLAPS_NAMED));
    }
    Some(format!(
        "{total} partitions overlap others, which a valid table never does (a damaged or crafted table; \
         at most one of each set can be real): {}",
        described.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::gpt;
    use crate::image::tables::PartitionType;

    #[test]
    fn a_crafted_table_of_thousands_of_overlaps_gets_a_short_note() {
        let parts: Vec<Part> = (1..=8192)
            .map(|number| Part {
                number,
                kind: PartitionType::Gpt(gpt::BASIC_DATA),
                offset: 1 << 20,
                size: 1 << 20,
            })
            .collect();
        let why = overlaps("d", &parts).unwrap();
        assert!(why.starts_with("8192 partitions overlap others"), "{why}");
        assert!(why.contains("d-p1, d-p2, d-p3, d-p4 and 8188 more over bytes"), "{why}");
        assert!(why.len() < 400, "{why}");
        let apart: Vec<Part> = (0..4u32)
            .map(|i| Part {
                number: i + 1,
                kind: PartitionType::Mbr(7),
                offset: u64::from(i) << 20,
                size: 1 << 20,
            })
            .collect();
        assert_eq!(overlaps("d", &apart), None, "touching is not overlapping");
    }
}
