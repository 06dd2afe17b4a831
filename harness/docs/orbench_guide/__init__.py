"""orbench's user guide, built by MkDocs (`make docs`, harness/docs/mkdocs.yml): the hook that adds the pages
made at build time, and what makes them.

- schema_pages: campaign and descriptor keys, from their JSON Schemas
- cli_page: the `orbench` command, from its argument parser
- summary_page: summary.json's keys, from the codec's types (summary/model.py) and summary-fields.toml
- included: the reference texts kept beside the code (harness/PROTOCOL.md, ...), one home each
- reference_set: results/reference/, the figures pages quote, and `make reference` that writes it
- hooks: MkDocs' events
"""
