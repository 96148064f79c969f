// Passkeys (docs/protocol.md, Passkeys). A button with data-passkey runs
// one WebAuthn ceremony: it posts to its data-endpoint + "/begin" for the
// options, asks the browser's authenticator (navigator.credentials), and
// posts the answer to data-endpoint + "/finish", which says where to go.
// The server's go-webauthn checks everything; this only carries bytes,
// as base64url, between the two.
(function () {
  "use strict";

  function toB64u(buf) {
    var bytes = new Uint8Array(buf), s = "";
    for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function fromB64u(s) {
    s = s.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }

  function ids(list) {
    (list || []).forEach(function (c) { c.id = fromB64u(c.id); });
  }

  function credentialJSON(c) {
    var r = c.response;
    var out = {
      id: c.id, rawId: toB64u(c.rawId), type: c.type,
      authenticatorAttachment: c.authenticatorAttachment || undefined,
      clientExtensionResults: c.getClientExtensionResults ? c.getClientExtensionResults() : {},
      response: { clientDataJSON: toB64u(r.clientDataJSON) }
    };
    if (r.attestationObject) {
      out.response.attestationObject = toB64u(r.attestationObject);
      out.response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      out.response.authenticatorData = toB64u(r.authenticatorData);
      out.response.signature = toB64u(r.signature);
      if (r.userHandle) out.response.userHandle = toB64u(r.userHandle);
    }
    return out;
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body || {})
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        if (!res.ok || data.ok === false) throw new Error(data.error || "The server answered " + res.status + ".");
        return data;
      });
    });
  }

  function run(button) {
    var kind = button.dataset.passkey, endpoint = button.dataset.endpoint;
    var status = document.getElementById(button.dataset.status);
    var extra = {};
    if (button.dataset.name) extra.name = document.getElementById(button.dataset.name).value;
    if (button.dataset.next) extra.next = button.dataset.next;
    button.disabled = true;
    status.hidden = true;
    post(endpoint + "/begin", {}).then(function (options) {
      var pk = options.publicKey;
      pk.challenge = fromB64u(pk.challenge);
      if (kind === "register") {
        pk.user.id = fromB64u(pk.user.id);
        ids(pk.excludeCredentials);
        return navigator.credentials.create({ publicKey: pk });
      }
      ids(pk.allowCredentials);
      return navigator.credentials.get({ publicKey: pk });
    }).then(function (credential) {
      extra.credential = credentialJSON(credential);
      return post(endpoint + "/finish", extra);
    }).then(function (done) {
      window.location.assign(done.redirect);
    }).catch(function (err) {
      status.textContent = err.name === "NotAllowedError"
        ? "The passkey was not used: the request was cancelled or timed out."
        : err.message;
      status.hidden = false;
      button.disabled = false;
    });
  }

  document.querySelectorAll("[data-passkey]").forEach(function (button) {
    if (!window.PublicKeyCredential) {
      button.disabled = true;
      var status = document.getElementById(button.dataset.status);
      status.textContent = "This browser does not support passkeys.";
      status.hidden = false;
      return;
    }
    button.addEventListener("click", function (ev) {
      ev.preventDefault();
      run(button);
    });
  });
})();
