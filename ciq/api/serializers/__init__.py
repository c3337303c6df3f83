"""Input and output serializers of the API (separate classes, explicit fields)."""
