"""Stylesheets and headers the renderers embed; shipped as package data."""
