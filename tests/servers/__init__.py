"""Real local HTTP servers for the API backend tests: llama.cpp's server and a scripted stub."""
