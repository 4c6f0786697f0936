//! The one integration-test binary: each module drives one part of the kit.
