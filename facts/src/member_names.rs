//! The member names each object open in a scan has shown so far, so that the pointer index keeps
//! the first of a member named twice, as `locate` does, and skips the rest.

use std::borrow::Cow;

use spindle_text::fast_hash::FastSet;

/// Up to this many members an object's names are searched in a list (behind a one-word filter
/// that rules out most of them); beyond it they move to a hash set, so that an object of a
/// million members costs a million look-ups, not their square.
const LISTED: usize = 32;

#[derive(Default)]
pub(crate) struct MemberNames<'t> {
    /// The names of the open objects' members, the innermost object's last.
    listed: Vec<Cow<'t, str>>,
    objects: Vec<Object<'t>>,
}

struct Object<'t> {
    /// Where this object's names start in `listed`.
    from: usize,
    /// One bit per name seen, chosen by [`filter_bit`]: a clear bit proves a name is new.
    filter: u64,
    /// Seeded per process: the names are the snapshot's, and must not choose their collisions.
    many: Option<FastSet<Cow<'t, str>>>,
}

impl<'t> MemberNames<'t> {
    pub(crate) fn open(&mut self) {
        self.objects.push(Object { from: self.listed.len(), filter: 0, many: None });
    }

    pub(crate) fn close(&mut self) {
        if let Some(o) = self.objects.pop() {
            self.listed.truncate(o.from);
        }
    }

    /// Records `name` in the innermost open object; `false` when that object already has it.
    pub(crate) fn is_new(&mut self, name: Cow<'t, str>) -> bool {
        let Some(o) = self.objects.last_mut() else { return true };
        if let Some(many) = &mut o.many {
            return many.insert(name);
        }
        let bit = filter_bit(name.as_bytes());
        if o.filter & bit != 0 && self.listed[o.from..].contains(&name) {
            return false;
        }
        o.filter |= bit;
        self.listed.push(name);
        if self.listed.len() - o.from > LISTED {
            o.many = Some(self.listed.drain(o.from..).collect());
        }
        true
    }
}

/// A bit from a name's length and three of its bytes: field names of one object differ in those
/// almost always, and this costs a few instructions where hashing the whole name costs dozens.
fn filter_bit(name: &[u8]) -> u64 {
    let n = name.len();
    let (first, middle, last) = match name {
        [] => (0, 0, 0),
        _ => (name[0], name[n / 2], name[n - 1]),
    };
    let mix = (n as u64).wrapping_mul(0x9e37)
        ^ u64::from(first)
        ^ (u64::from(middle) << 2)
        ^ (u64::from(last) << 4);
    1 << (mix.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 58)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_new_once_per_object() {
        let mut m = MemberNames::default();
        m.open();
        assert!(m.is_new("a".into()));
        m.open();
        assert!(m.is_new("a".into()), "a nested object has names of its own");
        assert!(!m.is_new("a".into()));
        m.close();
        assert!(!m.is_new("a".into()), "the outer object still has its a");
        assert!(m.is_new("b".into()));
        m.close();
        m.open();
        assert!(m.is_new("a".into()), "a later object starts afresh");
    }

    #[test]
    fn many_members_are_found_in_the_set() {
        let mut m = MemberNames::default();
        m.open();
        let names: Vec<String> = (0..1_000).map(|i| format!("m{i}")).collect();
        for n in &names {
            assert!(m.is_new(n.as_str().into()), "{n}");
        }
        for n in &names {
            assert!(!m.is_new(n.as_str().into()), "{n}");
        }
        m.open();
        assert!(m.is_new("m5".into()));
        m.close();
        assert!(!m.is_new("m5".into()));
    }

    #[test]
    fn names_that_share_a_filter_bit_are_told_apart() {
        let mut m = MemberNames::default();
        m.open();
        // Same length, first, middle and last byte: the filter cannot tell them apart.
        assert_eq!(filter_bit(b"axbxc"), filter_bit(b"aybzc"));
        assert!(m.is_new("axbxc".into()));
        assert!(m.is_new("aybzc".into()));
        assert!(!m.is_new("aybzc".into()));
    }
}
