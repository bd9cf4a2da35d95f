//! Partitions from `MSFT_Partition`, each on the disk it names.

use spindle_core::facts::Partition;

use super::joins::Joins;
use super::read;
use crate::notes::Uncollected;
use crate::windows::rows::*;

pub(super) fn partitions(rows: &WmiRows, j: &Joins, notes: &mut Uncollected) -> Option<Vec<Partition>> {
    let parts = read(&rows.partitions, "MSFT_Partition", "partitions", notes)?;
    let mut no_offset = vec![];
    let list = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.offset.is_none() {
                no_offset.push(j.part_ids[i].clone());
            }
            Partition {
                id: j.part_ids[i].clone(),
                disk_id: j.disk_of_partition(p),
                number: p.partition_number,
                offset_bytes: p.offset,
                size_bytes: p.size,
            }
        })
        .collect();
    notes.miss_for(
        "partitions[].offset_bytes",
        "MSFT_Partition.Offset not reported (it is not on the class page) for",
        &no_offset,
    );
    Some(list)
}
