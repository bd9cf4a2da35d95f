//! One host's facts, merged from every snapshot file that describes it, with each entity's stable
//! key, readable label and origin (file and JSON pointer) so findings can point at the fact.

mod backing;
mod build;
mod collector_reason;
mod entities;
mod file_volume;
mod host;
mod index;
mod located;
mod lookup;
mod memo;
mod physical_disks;
mod placement;
mod stale;
mod stripe;
#[cfg(test)]
mod tests;

pub use build::ViewParts;
pub use collector_reason::collector_reason;
pub use file_volume::{UnknownVolume, UnknownVolumeCause};
pub use host::{HostView, Provenance};
pub use located::{DatabaseView, Located};
pub use stale::StaleFacts;
pub use stripe::{Stripe, StripeSource};

pub use crate::entity::{EntityRef, Origin};

// What a loaded file is belongs to the facts crate, which reads it; the view keeps the name.
pub use crate::load::Document;
