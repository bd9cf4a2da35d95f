//! What a fix is expected to gain, from a public measurement: a range with its assumptions and
//! its source, never a promise. A rule attaches one to a finding only where such a measurement
//! exists; everywhere else there is no estimate, which reports say rather than guess.

use crate::quantity::Quantity;
use crate::units;

/// Which way the metric improves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Better {
    /// Throughput, IOPS: the fix raises it.
    Higher,
    /// Latency, service time: the fix lowers it.
    Lower,
}

impl Better {
    /// `higher`, `lower`: the word machine formats write.
    pub fn as_str(self) -> &'static str {
        match self {
            Better::Higher => "higher",
            Better::Lower => "lower",
        }
    }
}

/// An expected gain: the metric, how far it moves (a range in percent of today's value, both
/// ends positive: `13..=21` is +13 % to +21 % for [`Better::Higher`], −13 % to −21 % for
/// [`Better::Lower`]), the value to expect after the fix where the evidence gives one, under
/// which assumptions, and the public measurement behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Gain {
    /// What improves (`random 8 KiB read IOPS`).
    pub metric: String,
    pub better: Better,
    pub low_percent: f64,
    pub high_percent: f64,
    /// The metric after the fix, low and high end (`0.1 ms` to `3.1 ms`), when the evidence
    /// gives a value and not only a ratio.
    pub after: Option<(Quantity, Quantity)>,
    /// Under which conditions the measurement holds.
    pub assumptions: String,
    /// The public measurement: a title and its address.
    pub evidence: String,
    pub url: String,
}

/// A latency cut is capped here when ranked: from 12 ms to 0.1 ms is a 120-fold speed-up that
/// no other estimate could be compared with, and the floor it is computed from is itself a
/// round figure.
const MAX_CUT_PERCENT: f64 = 95.0;

impl Gain {
    /// The number `--sort gain` ranks by: the high end, with a latency cut counted as the
    /// speed-up it gives (−50 % latency is twice as fast: +100 %; a cut is capped at 95 %, so
    /// +1,900 % at most).
    pub fn rank(&self) -> f64 {
        match self.better {
            Better::Higher => self.high_percent,
            Better::Lower => {
                let cut = self.high_percent.clamp(0.0, MAX_CUT_PERCENT);
                (100.0 / (100.0 - cut) - 1.0) * 100.0
            }
        }
    }

    /// `+13 % to +21 %`, `about −60 %`: the range with its sign.
    pub fn range_text(&self) -> String {
        let sign = match self.better {
            Better::Higher => "+",
            Better::Lower => "−",
        };
        let pct = |p: f64| format!("{sign}{} %", units::fixed(p, 0));
        if (self.low_percent - self.high_percent).abs() < 0.5 {
            format!("about {}", pct(self.high_percent))
        } else {
            format!("{} to {}", pct(self.low_percent), pct(self.high_percent))
        }
    }

    /// One line: `+13 % to +21 % throughput (…)`, `−60 % to −99 % log write service time
    /// (0.1 ms to 3.1 ms after the fix)`, with "estimate" said.
    pub fn line(&self) -> String {
        let after = match self.after {
            Some((lo, hi)) if lo == hi => format!(", about {} after the fix", quantity(lo)),
            Some((lo, hi)) => format!(", {} to {} after the fix", quantity(lo), quantity(hi)),
            None => String::new(),
        };
        format!("{} {}{after} (an estimate, not a promise)", self.range_text(), self.metric)
    }
}

fn quantity(q: Quantity) -> String {
    use crate::finding::Unit;
    match q.unit {
        Unit::Ms => units::ms(q.value),
        Unit::Percent => units::percent(q.value / 100.0),
        Unit::Bytes => units::binary(q.value as u64),
        Unit::Count => units::thousands(q.value as u64),
    }
}

/// What `--sort gain` ranks something by that may have no estimate: [`Gain::rank`], and below
/// every estimate when there is none.
pub fn rank_of(gain: Option<&Gain>) -> f64 {
    gain.map_or(-1.0, Gain::rank)
}

/// The larger of two gains by [`Gain::rank`]; `a` on a tie.
pub fn best<'g>(a: Option<&'g Gain>, b: Option<&'g Gain>) -> Option<&'g Gain> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.rank() > x.rank() { y } else { x }),
        (x, y) => x.or(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gain(better: Better, low: f64, high: f64) -> Gain {
        Gain {
            metric: "m".into(),
            better,
            low_percent: low,
            high_percent: high,
            after: None,
            assumptions: String::new(),
            evidence: String::new(),
            url: String::new(),
        }
    }

    #[test]
    fn a_latency_cut_ranks_as_its_speed_up() {
        assert_eq!(gain(Better::Higher, 13.0, 21.0).rank(), 21.0);
        assert_eq!(gain(Better::Lower, 10.0, 50.0).rank(), 100.0);
        // Capped: a 99 % cut ranks as a 95 % one.
        assert_eq!(gain(Better::Lower, 60.0, 99.0).rank(), gain(Better::Lower, 0.0, 95.0).rank());
        assert!(gain(Better::Lower, 0.0, 95.0).rank() > 1899.0);
    }

    #[test]
    fn the_range_says_its_direction() {
        assert_eq!(gain(Better::Higher, 13.0, 21.0).range_text(), "+13 % to +21 %");
        assert_eq!(gain(Better::Lower, 60.0, 99.0).range_text(), "−60 % to −99 %");
        assert_eq!(gain(Better::Higher, 21.2, 21.0).range_text(), "about +21 %");
        let mut g = gain(Better::Lower, 60.0, 99.0);
        g.after = Some((Quantity::ms(0.1), Quantity::ms(3.1)));
        assert_eq!(g.line(), "−60 % to −99 % m, 0.1 ms to 3.1 ms after the fix (an estimate, not a promise)");
    }

    #[test]
    fn best_keeps_the_larger_rank() {
        let (a, b) = (gain(Better::Higher, 0.0, 21.0), gain(Better::Lower, 0.0, 50.0));
        assert_eq!(best(Some(&a), Some(&b)), Some(&b));
        assert_eq!(best(Some(&a), None), Some(&a));
        assert_eq!(best(None, None), None);
    }
}
