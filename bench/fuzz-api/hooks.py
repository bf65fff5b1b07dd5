# Schemathesis hooks for bench:fuzz-api (loaded through SCHEMATHESIS_HOOKS). Generated bodies name
# random workspaces, which the stack refuses (403 WORKSPACE_NOT_ALLOWED); half of the requests that
# take a workspace get the bench's real one instead, so sessions start and the links lead somewhere.
import os
import random

import schemathesis

WORKSPACE = os.environ.get("AIDE_FUZZ_WORKSPACE", "")


@schemathesis.hook
def map_body(context, body):
    if WORKSPACE and isinstance(body, dict) and "workspace" in body and random.random() < 0.5:
        body["workspace"] = WORKSPACE
    return body


@schemathesis.hook
def map_query(context, query):
    if WORKSPACE and isinstance(query, dict) and "workspace" in query and random.random() < 0.5:
        query["workspace"] = WORKSPACE
    return query
