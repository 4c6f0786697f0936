//! The one integration-test binary: each module drives one part of the kit.
mod report_model;
mod report_render;
mod report_support;
