"""Write ``templates/reference.docx``: pandoc's default reference document plus citeledger's
three styles, defined with the look the filter also gives them directly (``render.ooxml``).

Run from the repository after a pandoc upgrade (the zip's dates are fixed, so an unchanged
pandoc gives the same bytes):

    .venv/bin/python tools/make_reference_docx.py templates/reference.docx
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pypandoc

from citeledger.build.render import docx, ooxml
from citeledger.build.render.palette import BREAKDOWN

GREY = "757575"  # the HTML stylesheet's unverified grey: a declaration, not a breakdown


def styles() -> str:
    """The three styles, as ``w:style`` elements for ``word/styles.xml``."""
    flag = "".join(ooxml.flag_marks(BREAKDOWN))
    return (
        f'<w:style w:type="paragraph" w:customStyle="1" w:styleId="{docx.BREAKDOWN_STYLE_ID}">'
        f'<w:name w:val="{docx.BREAKDOWN_STYLE}"/><w:basedOn w:val="BodyText"/><w:qFormat/>'
        f'<w:pPr><w:keepLines/>{ooxml.box(BREAKDOWN)}<w:spacing w:before="60" w:after="60"/>'
        f'</w:pPr><w:rPr><w:color w:val="{BREAKDOWN.text}"/></w:rPr></w:style>'
        f'<w:style w:type="character" w:customStyle="1" w:styleId="{docx.FLAG_STYLE_ID}">'
        f'<w:name w:val="{docx.FLAG_STYLE}"/><w:basedOn w:val="DefaultParagraphFont"/>'
        f"<w:rPr>{flag}</w:rPr></w:style>"
        f'<w:style w:type="character" w:customStyle="1" w:styleId="{docx.UNVERIFIED_STYLE_ID}">'
        f'<w:name w:val="{docx.UNVERIFIED_STYLE}"/><w:basedOn w:val="DefaultParagraphFont"/>'
        f'<w:rPr><w:b/><w:bCs/><w:color w:val="{GREY}"/></w:rPr></w:style>'
    )


def reference_docx() -> bytes:
    default = subprocess.run(
        [pypandoc.get_pandoc_path(), "--print-default-data-file", "reference.docx"],
        capture_output=True,
        check=True,
    ).stdout
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(default)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "word/styles.xml":
                text = data.decode("utf-8")
                assert "Citeledger" not in text and text.rstrip().endswith("</w:styles>")
                data = text.replace("</w:styles>", styles() + "</w:styles>").encode("utf-8")
            fixed = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            dst.writestr(fixed, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "templates/reference.docx")
    target.write_bytes(reference_docx())
    print(f"wrote {target}")
