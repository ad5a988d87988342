"""A save carrying the ETag of a file that was deleted meanwhile is a 409, never a re-creation."""


def test_a_stale_save_does_not_bring_back_a_deleted_file(client, project):
    base = f"/api/projects/{project['id']}/files"
    opened = client.get(f"{base}/content", params={"path": "main.py"}).json()
    assert client.post(f"{base}/ops", json={"op": "delete", "path": "main.py"}).status_code == 200
    response = client.put(f"{base}/content", params={"path": "main.py"},
                          json={"content": "edited", "etag": opened["etag"]})
    assert response.status_code == 409, response.text
    assert response.json()["code"] == "deleted"
    assert client.get(f"{base}/content", params={"path": "main.py"}).status_code == 404


def test_a_save_without_an_etag_still_creates_the_file(client, project):
    base = f"/api/projects/{project['id']}/files"
    response = client.put(f"{base}/content", params={"path": "new.py"}, json={"content": "x = 1\n"})
    assert response.status_code == 200
    assert client.get(f"{base}/content", params={"path": "new.py"}).json()["content"] == "x = 1\n"
