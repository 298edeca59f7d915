"""locate"""
