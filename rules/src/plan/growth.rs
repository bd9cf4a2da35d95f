//! Growth settings ([`Remedy::FixedGrowth`]): one online step that gives every file the fixed increment
//! its rule suggests, with the statements that put the old settings back.

use std::collections::hash_map::Entry;

use spindle_core::facts::Growth;
use spindle_core::fast_hash::FastMap;
use spindle_core::plan::{Command, GrowthFrom, Phase, Remedy, Step};
use spindle_core::units;

use super::Builder;
use super::subject::Subject;
use crate::growth::no_percent_growth::{next_growth, suggested_mib};
use crate::growth::tsql::{mib_ceil, set_filegrowth};
use spindle_core::units::plural;

/// A file's new growth: database, logical name, increment in MiB, the growth it had, and the
/// findings it fixes.
type NewGrowth = (String, String, u64, Option<Growth>, Vec<usize>);

pub(super) fn steps(b: &mut Builder<'_>) {
    // Per file: the largest increment any of its findings asks for.
    let mut files: Vec<NewGrowth> = vec![];
    // Where each (database, logical name) is in `files`: a host with thousands of files would
    // otherwise walk them all for each finding.
    let mut at: FastMap<(&str, &str), usize> = FastMap::default();
    for (i, f, remedy) in b.open(|r| matches!(r, Remedy::FixedGrowth(_))) {
        let Subject::File(dv, file) = b.subject(&f.entity.key) else { continue };
        // A name commands cannot quote safely leaves its finding to a manual step of its own.
        if !Builder::safe(&[&dv.db.name, &file.logical_name]) {
            continue;
        }
        let mib = match (remedy, file.growth) {
            (Remedy::FixedGrowth(GrowthFrom::NextPercentGrowth), Some(Growth::Percent(p))) => {
                suggested_mib(file.size_bytes.map(|s| next_growth(s, p)))
            }
            // The expected value is the minimum increment the rule holds files to.
            _ => f.expected_quantity.map_or(64, |q| mib_ceil(q.value as u64)).max(1),
        };
        match at.entry((&dv.db.name, &file.logical_name)) {
            Entry::Occupied(e) => {
                let e = &mut files[*e.get()];
                e.2 = e.2.max(mib);
                e.4.push(i);
            }
            Entry::Vacant(e) => {
                e.insert(files.len());
                files.push((dv.db.name.clone(), file.logical_name.clone(), mib, file.growth, vec![i]));
            }
        }
    }
    if files.is_empty() {
        return;
    }
    let mut step = Step::new(
        Phase::Online,
        format!("Set a fixed growth increment on {}", plural(files.len(), "file")),
        "A percentage grows each time by more than the last, and a small increment grows the file \
         in many short stalls; a fixed increment of 64 MiB or more makes every growth the same, \
         quick with instant file initialization. Takes effect at once, online.",
    );
    let mut set = String::new();
    let mut back = String::new();
    for (db, logical, mib, old, _) in &files {
        set.push_str(&set_filegrowth(db, logical, *mib));
        set.push('\n');
        if let Some(old) = old {
            back.push_str(&restore_growth(db, logical, *old));
            back.push('\n');
        }
    }
    step.commands.push(Command::tsql(set));
    if !back.is_empty() {
        step.rollback.push(Command::tsql(back));
    }
    step.preconditions.push(format!(
        "Room on each file's volume for one growth of the new size (the largest is {}).",
        units::binary(files.iter().map(|f| f.2).max().unwrap_or(64) << 20)
    ));
    let indices: Vec<usize> = files.iter().flat_map(|f| f.4.iter().copied()).collect();
    let names: Vec<&str> = files.iter().flat_map(|f| [f.0.as_str(), f.1.as_str()]).collect();
    b.add(step, &indices, &names);
    b.growth_mib = files.into_iter().map(|(db, logical, mib, _, _)| ((db, logical), mib)).collect();
}

/// The statement that puts a file's growth back as it was.
fn restore_growth(db: &str, logical: &str, g: Growth) -> String {
    use crate::commands::{tsql_name, tsql_string};
    let value = match g {
        Growth::Percent(p) => format!("{p}%"),
        Growth::IncrementBytes(b) if b % (1 << 20) == 0 => format!("{}MB", b >> 20),
        Growth::IncrementBytes(b) => format!("{}KB", b.div_ceil(1024)),
        Growth::Disabled => "0".to_string(),
    };
    format!(
        "ALTER DATABASE {} MODIFY FILE (NAME = {}, FILEGROWTH = {value});",
        tsql_name(db),
        tsql_string(logical)
    )
}
