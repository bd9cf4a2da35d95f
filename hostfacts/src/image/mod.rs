//! TODO(image): being written.
