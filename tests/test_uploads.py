import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from retrieval.models import Document
from retrieval.uploads import documents_upload
from tests.conftest import SAMPLES_DIR


def test_upload_runs_ingest_on_commit(demo_workspace, django_capture_on_commit_callbacks):
    path = SAMPLES_DIR / "county/us-mo-ray-county/ray_county_planning_and_zoning_regulations_2005.txt"
    upload = SimpleUploadedFile("ray_copy.txt", path.read_bytes() + b"\nExtra line.")
    with django_capture_on_commit_callbacks(execute=True):
        docs = documents_upload(workspace=demo_workspace, uploads=[upload],
                                metadata={"jurisdiction": "US-MO-Ray", "jurisdiction_level": "county"})
    doc = Document.objects.get(pk=docs[0].pk)
    assert doc.status == "ready", doc.error
    assert doc.chunks.count() > 10


def test_upload_refuses_bad_files(demo_workspace):
    with pytest.raises(ValidationError) as err:
        documents_upload(workspace=demo_workspace, uploads=[
            SimpleUploadedFile("x.exe", b"MZ"), SimpleUploadedFile("e.txt", b"")])
    assert "unsupported file type" in str(err.value) and "empty" in str(err.value)
