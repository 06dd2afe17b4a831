"""MkDocs' events for the guide (harness/docs/mkdocs.yml names harness/docs/hooks.py, which takes these): the
reference set is read first (the build stops, saying how to make it, when it is missing), the pages made at
build time are added, and each page's quoted figures are filled in from the reference set."""

from __future__ import annotations

import logging

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from orbench.errors import UserError
from orbench_plots.report import IMAGE_CHECK

from orbench_guide import cli_page, included, quotes, reference_set, schema_pages, summary_page

# Pages made from the code, by their place in the guide.
GENERATED = {
    "reference/campaign-keys.md": lambda: schema_pages.keys_page(
        schema_pages.campaign_schema(), "Campaign keys",
        "Made from `harness/orbench/campaign/campaign.schema.json`, the schema every campaign file is checked "
        "against, when the guide is built. How the keys work together: [Campaigns](campaigns.md)."),
    "reference/descriptor-keys.md": lambda: schema_pages.keys_page(
        schema_pages.descriptor_schema(), "Target descriptor keys",
        "Made from `harness/orbench/targets/descriptor.schema.json`, the schema every file in `harness/targets/` "
        "is checked against, when the guide is built. A descriptor annotated key by key, and how to add a "
        "target: [Targets](targets.md)."),
    "reference/cli.md": cli_page.cli_page,
    "reference/summary-json.md": summary_page.summary_page,
}

IMAGE_CHECK_JS = "js/image-check.js"

_state: dict[str, reference_set.ReferenceSet] = {}
# A warning here fails the strict build (mkdocs.yml): MkDocs counts those of its own loggers.
log = logging.getLogger("mkdocs.plugins.orbench_guide")


def undescribed() -> list[str]:
    """Every key, option and summary.json field of the generated reference that has no description."""
    return ([f"campaign key {k}" for k in schema_pages.undescribed(schema_pages.campaign_schema())]
            + [f"descriptor key {k}" for k in schema_pages.undescribed(schema_pages.descriptor_schema())]
            + [f"option {o}" for o in cli_page.undescribed()]
            + [f"summary.json {f}" for f in summary_page.undescribed()])


def _reference() -> reference_set.ReferenceSet:
    return _state["reference"]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    try:
        _state["reference"] = reference_set.load()
    except UserError as exc:
        raise PluginError(str(exc)) from None
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for missing in undescribed():
        log.warning(f"the reference has no description of the {missing}")
    for page, make in GENERATED.items():
        files.append(File.generated(config, page, content=make()))
    for page in included.INCLUDED:
        files.append(File.generated(config, page, content=included.included_page(page)))
    # The report's image check, on every page too (mkdocs.yml extra_javascript): a browser test can tell that
    # every figure of a page decoded.
    script = IMAGE_CHECK.removeprefix("<script>").removesuffix("</script>")
    files.append(File.generated(config, IMAGE_CHECK_JS, content=script))
    ref = _reference()
    for path in [ref.path / "report.html", *sorted((ref.path / "figures").glob("*.png"))]:
        uri = f"{quotes.SITE_DIR}/{path.relative_to(ref.path).as_posix()}"
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    site_root = "../" * page.file.src_uri.count("/")
    try:
        text, quoted = quotes.quote(_reference(), markdown, site_root)
    except UserError as exc:
        raise PluginError(f"{page.file.src_uri}: {exc}") from None
    return text + quotes.source_note(_reference(), site_root) if quoted else text
