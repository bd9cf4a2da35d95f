//! `--shard I/N`: a stable share of a fleet, so that the job engine a team already runs (a CI
//! matrix, GitLab `parallel:`, a Kubernetes Indexed Job) can split a check or a collection.
//!
//! A host belongs to shard `fnv1a64(lowercase name) % N + 1`: the same on every machine and
//! every version, and adding or removing a server moves only that server. A host's snapshot
//! files, and the live server of the same name, always fall in one shard, so a host is never
//! split between two.

use std::fmt;
use std::str::FromStr;

/// One share of `count`, `index` in `1..=count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// The most shards a run splits into: far beyond any job engine's parallelism.
pub const MAX_SHARDS: u32 = 10_000;

impl Shard {
    /// Whether `host` (a host name as snapshots or the inventory give it) is in this shard.
    pub fn holds(&self, host: &str) -> bool {
        shard_of(host, self.count) == self.index
    }
}

/// The shard of `count` that `host` belongs to (1-based). Host names compare without case,
/// as everywhere in spindle.
pub fn shard_of(host: &str, count: u32) -> u32 {
    let hash = spindle_core::fnv::fnv1a64(host.to_lowercase().as_bytes());
    (hash % u64::from(count.max(1))) as u32 + 1
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "{}: expected I/N, the shard's number from 1 to N and the number of shards (`--shard 2/8`)",
                spindle_core::untrusted::name(s)
            )
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) =
            (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || count > MAX_SHARDS {
            return Err(format!("{s}: the number of shards goes from 1 to {MAX_SHARDS}"));
        }
        if index == 0 || index > count {
            return Err(format!("{s}: shards are numbered from 1 to {count}"));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_refuses() {
        assert_eq!("3/16".parse::<Shard>(), Ok(Shard { index: 3, count: 16 }));
        for bad in ["0/4", "5/4", "1/0", "x/2", "2", "1/10001", "-1/3"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn every_host_is_in_exactly_one_shard_and_case_does_not_move_it() {
        for host in ["sql01", "SQL01.corp.example", "erp-sql1", ""] {
            for count in [1, 3, 16] {
                let holders: Vec<u32> =
                    (1..=count).filter(|&index| Shard { index, count }.holds(host)).collect();
                assert_eq!(holders.len(), 1, "{host} in {count}");
                assert_eq!(shard_of(&host.to_uppercase(), count), holders[0]);
            }
        }
    }

    #[test]
    fn the_hash_is_fnv1a_of_the_lowercase_name() {
        // Pinned: a shard's share must not move between versions or machines.
        assert_eq!(spindle_core::fnv::fnv1a64(b"sql01") % 16 + 1, u64::from(shard_of("SQL01", 16)));
        assert_eq!(spindle_core::fnv::fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn a_fleet_spreads_over_the_shards() {
        let mut per = [0usize; 16];
        for i in 0..2000 {
            per[shard_of(&format!("sql{i:04}"), 16) as usize - 1] += 1;
        }
        // 125 on average; FNV-1a keeps every shard within a third of it.
        assert!(per.iter().all(|&n| (84..=167).contains(&n)), "{per:?}");
    }
}
