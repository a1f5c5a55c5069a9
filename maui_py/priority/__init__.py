"""priority"""
