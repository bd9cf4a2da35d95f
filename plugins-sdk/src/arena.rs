//! The plugin's allocator inside the component: a bump arena first, the general allocator
//! beyond it.
//!
//! spindle gives every call a fresh instance, so nothing a call allocates outlives it: a call
//! lifts the host's facts into strings and lists, builds a view, runs rules and lowers its
//! findings, thousands of small allocations that `dlmalloc` would each search a free list for and
//! that are all dropped together. The first [`ARENA_BYTES`] are handed out by bumping a pointer
//! and never freed (the instance is dropped after the call); what does not fit goes to the
//! general allocator, which frees as usual, so a huge host still stays under the memory limit.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The arena: 4 MiB, within the 8 MiB the plugin template's linker argument gives a component
/// from the start, so that most calls never grow their memory.
pub const ARENA_BYTES: usize = 4 << 20;

pub struct CallArena {
    /// The arena's start, taken from the general allocator on first use (0: not yet).
    base: Cell<usize>,
    /// The next free byte's offset in the arena.
    next: Cell<usize>,
}

// A WebAssembly component runs on one thread.
unsafe impl Sync for CallArena {}

impl CallArena {
    pub const fn new() -> Self {
        CallArena { base: Cell::new(0), next: Cell::new(0) }
    }

    fn base(&self) -> usize {
        if self.base.get() == 0 {
            // SAFETY: a non-zero size and a power-of-two alignment.
            let p = unsafe {
                System.alloc(Layout::from_size_align(ARENA_BYTES, 16).unwrap_or(Layout::new::<u8>()))
            };
            // Without an arena (the general allocator refused), every allocation goes to it.
            self.base.set(if p.is_null() { usize::MAX } else { p as usize });
        }
        self.base.get()
    }

    fn contains(&self, p: *mut u8) -> bool {
        let base = self.base.get();
        base != 0 && base != usize::MAX && (p as usize) >= base && (p as usize) < base + ARENA_BYTES
    }
}

impl Default for CallArena {
    fn default() -> Self {
        CallArena::new()
    }
}

unsafe impl GlobalAlloc for CallArena {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let base = self.base();
        if base != usize::MAX {
            let start = (base + self.next.get()).next_multiple_of(layout.align());
            if let Some(end) = start.checked_add(layout.size()).filter(|&end| end <= base + ARENA_BYTES) {
                self.next.set(end - base);
                return start as *mut u8;
            }
        }
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // The arena's bytes go with the instance.
        if !self.contains(ptr) {
            // SAFETY: `ptr` came from `System.alloc` with this layout.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if self.contains(ptr) {
            let base = self.base.get();
            // The last allocation grows or shrinks in place while the arena has room.
            if ptr as usize + layout.size() == base + self.next.get()
                && ptr as usize + new_size <= base + ARENA_BYTES
            {
                self.next.set(ptr as usize + new_size - base);
                return ptr;
            }
            // SAFETY: a layout of the same alignment; the old bytes stay valid (never freed).
            let new = unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
            if !new.is_null() {
                // SAFETY: both blocks hold at least the smaller size and do not overlap.
                unsafe { std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
            }
            return new;
        }
        // SAFETY: `ptr` came from `System.alloc` with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
