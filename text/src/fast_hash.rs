//! The maps and sets the view, the engine and the rules key by a snapshot's own strings (entity
//! keys, ids, mount points), looked up hundreds of times per host.
//!
//! std's SipHash cost a twentieth of a fleet check; foldhash is several times faster on short
//! keys and, seeded per process, still keeps a snapshot from choosing keys that collide (which
//! FNV, used where the text is already trusted, would not).

pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub type FastSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
