//! What the three format registries' handles (`Format`, `PlanFormat`, `DiffFormat`) share: each
//! wraps a `&'static` registry entry and is the same format as another when it has the same
//! name, which is also how it prints.

/// Equality, `Debug` (`Type(name)`) and `Display` (`name`) for a handle `$t` whose field `.0` is
/// a registry entry with a `name`.
macro_rules! named_handle {
    ($t:ident) => {
        impl PartialEq for $t {
            fn eq(&self, other: &$t) -> bool {
                self.0.name == other.0.name
            }
        }

        impl Eq for $t {}

        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!(stringify!($t), "({})"), self.0.name)
            }
        }

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0.name)
            }
        }
    };
}

pub(crate) use named_handle;
