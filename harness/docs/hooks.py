"""The guide's MkDocs hooks (mkdocs.yml, `hooks:`): the events live in orbench_guide/hooks.py."""

from orbench_guide.hooks import on_config, on_files, on_page_markdown

__all__ = ["on_config", "on_files", "on_page_markdown"]
