//! Finding an entity in a section by id or by address, walked or indexed by the section's length.

use std::sync::OnceLock;

use crate::fast_hash::FastMap;

use super::located::Located;

/// Sections up to this long are searched by walking them: for the handful of disks or volumes of
/// most hosts a walk is quicker than hashing and allocates nothing. Longer ones are searched
/// through an index built on first use, so a host of 40,000 disks is joined in time linear in
/// its size rather than quadratic (a walk per lookup took 168 s there).
pub(super) const WALK: usize = 16;

/// The position of the first entity whose id is `id`: walked when the section is short, else
/// looked up in `index`, built on first use.
pub(super) fn position_by_id<T>(
    section: &Option<Vec<Located<T>>>,
    index: &OnceLock<FastMap<String, usize>>,
    id: &str,
    id_of: impl Fn(&T) -> &str,
) -> Option<usize> {
    let items = section.as_deref()?;
    if items.len() <= WALK {
        return items.iter().position(|l| id_of(&l.item) == id);
    }
    let index = index.get_or_init(|| {
        let mut m = FastMap::with_capacity_and_hasher(items.len(), Default::default());
        for (i, l) in items.iter().enumerate() {
            m.entry(id_of(&l.item).to_owned()).or_insert(i);
        }
        m
    });
    index.get(id).copied()
}

/// The position of `item` in `items`, when it is one of them, found by its address (rules pass
/// the view's own entities): no walk, no comparison of contents.
pub(super) fn position_of<T>(items: &[Located<T>], item: &T) -> Option<usize> {
    let first = items.first()?;
    let offset = std::ptr::from_ref(item) as usize;
    let start = std::ptr::from_ref(&first.item) as usize;
    let i = offset.checked_sub(start)? / std::mem::size_of::<Located<T>>().max(1);
    items.get(i).filter(|l| std::ptr::eq(&l.item, item)).map(|_| i)
}
