"""Keeps each workspace's index (:mod:`retrieval.fts`, ``retrieval.index_writes``) in step with deletions and
title edits that do not go through :mod:`retrieval.services`: a document deleted in the
admin or by a workspace's cascade, a title edited in the admin or the API."""

from __future__ import annotations

from django.db.models.signals import post_delete, pre_delete, pre_save
from django.dispatch import receiver

from ciq.models import Workspace
from retrieval.fts import fts_drop, fts_retitle
from retrieval.index import index_get
from retrieval.models import Document


@receiver(pre_delete, sender=Document, dispatch_uid="retrieval.fts.document_delete")
def document_leaves_index(sender, instance: Document, **kwargs) -> None:
    """Before a document's chunks go by cascade, take them out of the configured index
    (its lexical rows, and any copy it keeps elsewhere: ``retrieval.index_writes``)."""
    index_get().remove(instance)


@receiver(pre_save, sender=Document, dispatch_uid="retrieval.fts.document_retitle")
def document_retitle(sender, instance: Document, raw: bool = False, **kwargs) -> None:
    """A changed title reaches the title column of the document's indexed chunks."""
    if raw or instance.pk is None:
        return
    before = Document.objects.filter(pk=instance.pk).values_list("title", flat=True).first()
    if before is not None and before != instance.title:
        fts_retitle(instance.workspace_id, instance.pk, instance.title)


@receiver(post_delete, sender=Workspace, dispatch_uid="retrieval.fts.workspace_delete")
def workspace_leaves_index(sender, instance: Workspace, **kwargs) -> None:
    """A deleted workspace's tables go with it."""
    fts_drop(instance.pk)
