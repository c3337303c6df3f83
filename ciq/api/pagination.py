"""Page-number pagination: ``?page=N&page_size=M`` (at most 100 per page)."""

from rest_framework import pagination


class PageNumberPagination(pagination.PageNumberPagination):
    """Pages of ``PAGE_SIZE`` items (setting ``API_PAGE_SIZE``); ``page_size`` up to 100."""

    page_size_query_param = "page_size"
    max_page_size = 100
