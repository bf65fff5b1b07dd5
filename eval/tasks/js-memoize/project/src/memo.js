// Caching helpers.
