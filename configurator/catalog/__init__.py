"""Catalog: spec models for cards, chassis and models, and YAML loading. No Qt."""
