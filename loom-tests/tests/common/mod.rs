//! Helpers shared by the loom models.

/// Runs `f` under loom, bounding preemptions at 3 unless `LOOM_MAX_PREEMPTIONS` says otherwise.
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(3);
    }
    builder.check(f);
}
