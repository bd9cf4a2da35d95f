//! Finding the volume that holds a database file, with a reason when it cannot be found.

use spindle_core::facts::{DbFile, Volume};
use spindle_core::view::{HostView, Located};

/// The volume holding `f`, or why it is not known.
pub(crate) fn volume_of_file<'v>(view: &'v HostView, f: &DbFile) -> Result<&'v Located<Volume>, String> {
    // sys.dm_os_volume_stats gives an empty volume_id for a file on a UNC share: no id at all.
    let id = f.volume_id.as_deref().map(str::trim).filter(|id| !id.is_empty());
    if let Some(id) = id {
        return view.volume(id).ok_or_else(|| {
            format!("no collected volume has the id {id} (sys.dm_os_volume_stats.volume_id)")
        });
    }
    let Some(path) = f.physical_name.as_deref() else {
        return Err("neither volume_id (sys.dm_os_volume_stats) nor physical_name was collected".into());
    };
    view.volume_of_file(f).ok_or_else(|| {
        let id = match &f.volume_id {
            Some(_) => "an empty volume_id (a file on a UNC share)",
            None => "no volume_id",
        };
        format!("{id}, and no collected volume has a mount point that {path} is under")
    })
}
