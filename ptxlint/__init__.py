"""ptxlint: a static analyzer for inline PTX assembly in CUDA sources."""

__version__ = "0.1.0"
