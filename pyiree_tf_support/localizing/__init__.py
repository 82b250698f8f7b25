"""The dispatch localizer: which IREE dispatch of a mismatching call diverges first (TF-free)."""
