//! `spindle plugin inspect`: what a rule plugin declares.

use std::path::Path;

use crate::errors::UserError;

/// What a plugin declares, as text or JSON, after the same checks as a load.
pub fn inspect(file: &Path, json: bool) -> Result<String, UserError> {
    spindle_plugin_host::inspect::describe(file, json).map_err(|e| UserError::plain(e.to_string()))
}
